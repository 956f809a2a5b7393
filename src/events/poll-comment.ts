/**
 * The `comment` of the reads each instance's events work makes on its own, every poll (the
 * outbox's tail, due deliveries, the sweep), which tell them from requests' reads in the
 * database's logs, as the content check's comment does.
 */
export const EVENTS_POLL_COMMENT = 'pipeline-gateway events poll';
