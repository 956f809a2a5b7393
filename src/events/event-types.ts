/**
 * Every event type the gateway emits, in the order docs/events.md lists them. A webhook's
 * `events` and the subscription's `types` name types from here, or `*`.
 */
export const EVENT_TYPES = [
  'snapshot.committed',
  'sync.succeeded',
  'sync.failed',
  'deal.created',
  'deal.stage_changed',
  'deal.close_date_changed',
  'deal.amount_changed',
  'deal.won',
  'deal.lost',
  'deal.removed',
  'member.created',
  'member.updated',
  'member.deleted',
  'settings.updated',
  'target.updated',
  'forecast.submitted',
  'alert.triggered',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** True for a known event type. */
export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && (EVENT_TYPES as readonly string[]).includes(value);
}

/** Whether `type` is among `wanted` (`*` is every type). */
export function typeWanted(wanted: readonly string[], type: string): boolean {
  return wanted.includes('*') || wanted.includes(type);
}
