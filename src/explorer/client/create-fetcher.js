/**
 * Sends one GraphQL request with the headers of the header editor. Error statuses (401 for a
 * missing token, 400 for a bad query) still carry a GraphQL result, which GraphiQL shows as is.
 */
export function createFetcher(endpoint) {
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
      throw new Error(
        `Expected a JSON GraphQL response from ${endpoint}, got HTTP ${response.status}: ${text.slice(0, 200)}`,
      );
    }
  };
}
