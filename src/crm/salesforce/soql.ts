/**
 * The few SOQL pieces the connector writes: literals made from values it holds (ids from
 * Salesforce's own answers, instants), never from a person's input.
 */

/** A SOQL string literal: quotes and backslashes escaped, as SOQL's grammar asks. */
export function soqlString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * A SOQL dateTime literal in UTC to the second (`2026-11-23T09:50:00Z`), the form SOQL accepts;
 * milliseconds are dropped, so the instant is rounded down: a bound `>=` it reads no less.
 */
export function soqlDateTime(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
