// Browser entry of the GraphiQL explorer, bundled by esbuild (see ../build-assets.ts) into the
// gateway's own static assets. It is JavaScript, not TypeScript, because it runs in the browser
// and is not part of the Node compilation (tsconfig has no DOM types and no JSX).
import { GraphiQL } from 'graphiql';
import { useMemo, useRef, useState } from 'react';
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

/** The Authorization header of the header editor's JSON; undefined while it does not parse. */
function readAuthorization(headersText) {
  try {
    const headers = JSON.parse(headersText || '{}');
    if (!headers || typeof headers !== 'object') return undefined;
    const key = Object.keys(headers).find((name) => name.toLowerCase() === 'authorization');
    return key === undefined ? '' : String(headers[key]);
  } catch {
    return undefined;
  }
}

/** How long the header editor must stay still before a changed token re-reads the schema. */
const HEADER_SETTLE_MS = 400;

/**
 * GraphiQL reads the schema once, when its fetcher changes. The gateway needs a token for that
 * too, so a new fetcher is made whenever the pasted Authorization header changes: the docs
 * explorer and completion then fill in without pressing "re-fetch schema".
 */
function Explorer({ config }) {
  const [authorization, setAuthorization] = useState(() => readAuthorization(config.defaultHeaders));
  const timer = useRef(undefined);
  const fetcher = useMemo(() => createFetcher(config.endpoint), [config.endpoint, authorization]);
  const onEditHeaders = (text) => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      const next = readAuthorization(text);
      if (next !== undefined) setAuthorization(next);
    }, HEADER_SETTLE_MS);
  };
  return (
    <GraphiQL
      fetcher={fetcher}
      defaultQuery={config.defaultQuery}
      defaultHeaders={config.defaultHeaders}
      onEditHeaders={onEditHeaders}
      defaultEditorToolsVisibility="headers"
      shouldPersistHeaders={false}
      visiblePlugin="Documentation Explorer"
    />
  );
}

const config = readConfig();
createRoot(document.getElementById('graphiql')).render(<Explorer config={config} />);
