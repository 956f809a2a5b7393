/**
 * True for a MongoDB duplicate-key error (code 11000), optionally only on `field`. The unique
 * index is the source of truth for uniqueness, so services insert and translate this error
 * rather than checking first (which would race with a concurrent insert).
 */
export function isDuplicateKeyError(error: unknown, field?: string): boolean {
  if (typeof error !== 'object' || error === null || (error as { code?: unknown }).code !== 11000)
    return false;
  if (field === undefined) return true;
  const { keyPattern, keyValue, message } = error as {
    keyPattern?: object;
    keyValue?: object;
    message?: string;
  };
  if (keyPattern && field in keyPattern) return true;
  if (keyValue && field in keyValue) return true;
  // Servers that leave keyPattern out still name the index (`emailLower_1`) in the message.
  return (
    typeof message === 'string' &&
    (message.includes(`${field}_1`) || message.includes(`{ ${field}:`))
  );
}
