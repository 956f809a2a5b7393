// Browser entry of the GraphiQL explorer, bundled by esbuild (see ../build-assets.ts) into the
// gateway's own static assets. It is JavaScript, not TypeScript, because it runs in the browser
// and is not part of the Node compilation (tsconfig has no DOM types and no JSX).
import { GraphiQL } from 'graphiql';
import { createRoot } from 'react-dom/client';
import 'graphiql/graphiql.css';
import './explorer.css';

/**
 * The page carries its settings as a JSON data block (not a script the browser runs, so the
 * Content-Security-Policy can stay `script-src 'self'`).
 */
function readConfig() {
  const element = document.getElementById('graphiql-config');
  if (!element || !element.textContent) throw new Error('GraphiQL page is missing its #graphiql-config block');
  return JSON.parse(element.textContent);
}

/**
 * Sends one GraphQL request with the headers typed in the header editor. Error statuses (401 for a
 * missing token, 400 for a bad query) still carry a GraphQL result, which GraphiQL shows as is.
 */
function createFetcher(endpoint) {
  return async (params, options) => {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json, application/json',
        ...(options && options.headers ? options.headers : {}),
      },
      body: JSON.stringify(params),
    });
    const text = await response.text();
    try {
      return JSON.parse(text);
    } catch {
      throw new Error(`Expected a JSON GraphQL response from ${endpoint}, got HTTP ${response.status}: ${text.slice(0, 200)}`);
    }
  };
}

const config = readConfig();
const root = createRoot(document.getElementById('graphiql'));
root.render(
  <GraphiQL
    fetcher={createFetcher(config.endpoint)}
    defaultQuery={config.defaultQuery}
    defaultHeaders={config.defaultHeaders}
    defaultEditorToolsVisibility="headers"
    shouldPersistHeaders={false}
    visiblePlugin="Documentation Explorer"
  />,
);
