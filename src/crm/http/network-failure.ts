/** Why fetch threw, in words, without the URL (the caller names the call) or any header. */
export function networkFailure(error: unknown, timeoutMs: number): string {
  const name = (error as { name?: unknown }).name;
  if (name === 'TimeoutError' || name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  const message =
    typeof cause?.message === 'string' ? cause.message : String((error as Error).message ?? error);
  return `network error (${code ?? message})`;
}
