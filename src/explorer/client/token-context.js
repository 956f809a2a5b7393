import { createContext } from 'react';

/** The Authorization header the explorer currently sends ('' for none), for panels inside GraphiQL. */
export const TokenContext = createContext('');
