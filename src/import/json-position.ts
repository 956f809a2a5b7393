/**
 * Where in a text a JSON.parse error is: V8 reports an offset ("... in JSON at position 26");
 * people read lines and columns. Both are 1-based; null when the error names no position (an
 * unexpected end of input is reported at the end of the text).
 */
export function jsonErrorLocation(
  text: string,
  error: Error,
): { line: number; column: number } | null {
  const match = /at position (\d+)/.exec(error.message);
  const position = match
    ? Number(match[1])
    : /end of JSON input/.test(error.message)
      ? text.length
      : null;
  if (position === null) return null;
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  const column = position - (before.lastIndexOf('\n') + 1) + 1;
  return { line, column };
}

/** The parse error's own words without V8's offset, e.g. `Unexpected number in JSON`. */
export function jsonErrorReason(error: Error): string {
  return error.message
    .replace(/\s*at position \d+.*$/s, '')
    .replace(/\s*\(line \d+ column \d+\)/, '');
}
