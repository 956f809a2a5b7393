/**
 * A frame that breaks the wire protocol rules. The connection that sent it is closed and nothing
 * in the frame is applied: the peer's framing can no longer be trusted.
 */
export class WireError extends Error {}
