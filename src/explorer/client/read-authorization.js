/**
 * The Authorization header of the header editor's JSON text, when it holds something worth sending:
 * '' while it is missing, empty or still the `<paste …>` placeholder (no token contains `<` or `>`),
 * undefined while the text is not JSON (half typed), so the caller keeps what it had.
 */
export function readAuthorization(headersText) {
  let headers;
  try {
    headers = JSON.parse(headersText || '{}');
  } catch {
    return undefined;
  }
  if (!headers || typeof headers !== 'object' || Array.isArray(headers)) return '';
  const key = Object.keys(headers).find((name) => name.toLowerCase() === 'authorization');
  const value = key === undefined ? '' : String(headers[key]).trim();
  return /[<>]/.test(value) || /^bearer$/i.test(value) ? '' : value;
}
