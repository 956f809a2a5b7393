import type { ServerResponse } from 'node:http';

/**
 * Internal: calls `then` once `response` has been sent in full, or its connection closed; at once
 * when there is none or it is done. Node sends the answers of pipelined requests in order, so
 * once the last answer a connection owes is sent, every earlier one is.
 */
export function whenSent(response: ServerResponse | undefined, then: () => void): void {
  if (response === undefined || response.writableFinished || response.destroyed) return then();
  let called = false;
  const once = (): void => {
    if (called) return;
    called = true;
    then();
  };
  response.once('finish', once);
  response.once('close', once);
}
