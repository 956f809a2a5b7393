import { Long } from 'bson';
import { cursorId, requiredArray } from './arguments';
import type { Command } from './command';

export const killCursorsCommand: Command = {
  name: 'killCursors',
  run(ctx) {
    const ids = requiredArray(ctx.body, 'cursors', 'killCursors').map((v, i) =>
      cursorId(v, `killCursors.cursors.${i}`),
    );
    const { killed, notFound } = ctx.cursors.kill(ids);
    const toLong = (xs: bigint[]): Long[] => xs.map((x) => Long.fromBigInt(x));
    return {
      cursorsKilled: toLong(killed),
      cursorsNotFound: toLong(notFound),
      cursorsAlive: [],
      cursorsUnknown: [],
    };
  },
};
