/**
 * Words for a failed schema read, from what GraphiQL kept of it (the server's GraphQL result as
 * JSON text, or an error message). A token the gateway does not know answers UNAUTHENTICATED;
 * a valid token that may not read the schema (INTROSPECTION=admins lets only the admin) answers
 * with another code, and its queries still run.
 */
export function describeSchemaFailure(fetchError) {
  let error;
  try {
    error = JSON.parse(fetchError).errors[0];
  } catch {
    return {
      title: 'The schema could not be read',
      detail: String(fetchError),
      advice: 'Check that the gateway is running, then paste the token again.',
    };
  }
  const detail = error && error.message ? String(error.message) : String(fetchError);
  if (error && error.extensions && error.extensions.code === 'UNAUTHENTICATED') {
    return {
      title: 'Token not accepted',
      detail,
      advice: 'Paste the token again, all of it, after "Bearer ".',
    };
  }
  return {
    title: 'No schema for this token',
    detail,
    advice:
      'Queries still run with it. The docs and completion need a token allowed to read the schema: by default, the admin token.',
  };
}
