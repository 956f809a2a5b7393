import { DOC_EXPLORER_PLUGIN } from '@graphiql/react';
import { GraphiQLInterface, GraphiQLProvider } from 'graphiql';
import { useCallback, useMemo, useState } from 'react';
import { createFetcher } from './create-fetcher.js';
import { persistHeadersChoice, storedHeaders } from './graphiql-storage.js';
import { HeaderWatch } from './header-watch.jsx';
import { KeepHeadersStored } from './keep-headers-stored.jsx';
import { PanelFollowsSchema } from './panel-follows-schema.jsx';
import { readAuthorization } from './read-authorization.js';
import { StaleSchemaError } from './stale-schema-error.jsx';
import { START_PLUGIN } from './start-plugin.jsx';
import { TokenContext } from './token-context.js';

/** How long the header editor must stay still before its token is read. */
const HEADER_SETTLE_MS = 400;

const PLUGINS = [START_PLUGIN];

/**
 * GraphiQL with the token flow the gateway needs. Without a token the schema is not asked for at
 * all (`schema={null}`: the read could only fail) and the getting-started panel says what to do.
 * Once the header editor holds one, GraphiQL reads the schema with it (it reads when its fetcher
 * or its `schema` prop changes, hence a fetcher per token) and the docs open in the panel's
 * place; if the gateway refuses, the panel comes back and says why. The headers, token included,
 * are kept across reloads unless the user turns that off in GraphiQL's settings.
 */
export function ExplorerApp({ config }) {
  const [persistHeaders] = useState(persistHeadersChoice);
  // Known at the first render (GraphiQL opens on the headers it kept, if any), then read from the editor.
  const [authorization, setAuthorization] = useState(
    () => readAuthorization(storedHeaders() ?? config.defaultHeaders) ?? '',
  );
  const onHeaders = useCallback(
    (text) => setAuthorization((last) => readAuthorization(text) ?? last),
    [],
  );
  const fetcher = useMemo(() => createFetcher(config.endpoint), [config.endpoint, authorization]);
  // GraphiQL opens its side panel only if a plugin is visible at its first render.
  const visiblePlugin = authorization ? DOC_EXPLORER_PLUGIN.title : START_PLUGIN.title;
  return (
    <TokenContext.Provider value={authorization}>
      <GraphiQLProvider
        fetcher={fetcher}
        schema={authorization ? undefined : null}
        defaultQuery={config.defaultQuery}
        defaultHeaders={config.defaultHeaders}
        shouldPersistHeaders={persistHeaders}
        plugins={PLUGINS}
        visiblePlugin={visiblePlugin}
      >
        <HeaderWatch onHeaders={onHeaders} settleMs={HEADER_SETTLE_MS} />
        <KeepHeadersStored />
        <StaleSchemaError authorization={authorization} />
        <PanelFollowsSchema />
        <GraphiQLInterface defaultEditorToolsVisibility="headers" showPersistHeadersSettings />
      </GraphiQLProvider>
    </TokenContext.Provider>
  );
}
