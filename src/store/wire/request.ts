import type { Document } from 'bson';

/** A decoded client request: the two opcodes a modern driver sends. */
export type WireRequest =
  | {
      kind: 'msg';
      requestId: number;
      flags: number;
      /** The command body with kind-1 document sequences merged in as arrays. */
      body: Document;
    }
  | {
      kind: 'query';
      requestId: number;
      /** "<db>.$cmd" for commands, the only use drivers still make of OP_QUERY (legacy hello). */
      fullCollectionName: string;
      query: Document;
    };
