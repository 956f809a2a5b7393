// Browser entry of the GraphiQL explorer, bundled by esbuild (see ../build-assets.ts) into the
// gateway's own static assets. It is JavaScript, not TypeScript, because it runs in the browser
// and is not part of the Node compilation (tsconfig has no DOM types and no JSX).
import { createRoot } from 'react-dom/client';
import 'graphiql/graphiql.css';
import { ExplorerApp } from './explorer-app.jsx';
import './explorer.css';

/**
 * The page carries its settings as a JSON data block (not a script the browser runs, so the
 * Content-Security-Policy can stay `script-src 'self'`).
 */
function readConfig() {
  const element = document.getElementById('graphiql-config');
  if (!element || !element.textContent)
    throw new Error('GraphiQL page is missing its #graphiql-config block');
  return JSON.parse(element.textContent);
}

createRoot(document.getElementById('graphiql')).render(<ExplorerApp config={readConfig()} />);
