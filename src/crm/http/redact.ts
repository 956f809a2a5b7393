/**
 * Text a CRM sent back (an error message), made safe to show: on one line, every secret replaced
 * by `[redacted]`, and only then cut to `max` characters, so that a cut can never leave the first
 * part of a secret standing where the whole one would have been replaced.
 */
export function redactedText(text: string, secrets: readonly string[], max = 500): string {
  let line = text.replace(/\s+/g, ' ').trim();
  for (const secret of secrets) if (secret !== '') line = line.split(secret).join('[redacted]');
  return line.length > max ? `${line.slice(0, max)}…` : line;
}
