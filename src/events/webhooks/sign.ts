import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** A new signing secret: `whsec_` and 32 random bytes in base64, as Standard Webhooks writes them. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * The Standard Webhooks headers of one delivery: `webhook-id` (the event id, the same on every
 * attempt, for the receiver's de-duplication), `webhook-timestamp` (seconds) and
 * `webhook-signature`, `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` per secret (two
 * during a rotation's overlap, space-separated, so a receiver holding either key verifies).
 * Signed by the `standardwebhooks` package, the specification's own implementation.
 */
export function signatureHeaders(
  secrets: readonly string[],
  id: string,
  at: Date,
  body: string,
): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(id, at, body)).join(' '),
  };
}
