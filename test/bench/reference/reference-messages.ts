/** Internal (benchmark): what gateway.bench.ts and the reference servers say to each other. */

/** `serve`: start answering with this data (the bare server sends it as is, Mercurius resolves over it). */
export type ReferenceMessage = { type: 'serve'; body: unknown } | { type: 'stop' };

export interface ReferenceReady {
  type: 'ready';
  port: number;
}
