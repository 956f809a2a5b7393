// What GraphiQL itself keeps in the browser's local storage, read before GraphiQL renders: its
// first render decides whether the schema is read and which side panel opens, and both depend
// on the token. Keys are GraphiQL 3's own (`graphiql:` is its namespace).

function read(name) {
  try {
    return window.localStorage.getItem(`graphiql:${name}`) || null;
  } catch {
    return null; // storage blocked: GraphiQL keeps nothing either
  }
}

/**
 * Whether GraphiQL should keep the headers (and so the token) across reloads: yes, unless the
 * user turned "Persist headers" off in its settings. GraphiQL applies its `shouldPersistHeaders`
 * prop over that setting at every load, so the prop has to be the setting.
 */
export function persistHeadersChoice() {
  return read('shouldPersistHeaders') !== 'false';
}

/** The header editor's text GraphiQL kept from the last visit; null when it kept none. */
export function storedHeaders() {
  return read('headers');
}
