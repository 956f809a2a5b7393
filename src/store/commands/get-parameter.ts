import { SCRAM_SHA_256 } from '../auth/scram-credential';
import { StoreError } from '../errors';
import type { Command } from './command';

const PARAMETERS: Record<string, unknown> = {
  featureCompatibilityVersion: { version: '7.0' },
  // What the store speaks, whether or not this server asks for credentials (as mongod reports it).
  authenticationMechanisms: [SCRAM_SHA_256],
  cursorTimeoutMillis: 600_000,
  maxBSONDepth: 100,
  internalQueryMaxBlockingSortMemoryUsageBytes: 104_857_600,
};

/** `getParameter`: `'*'` returns all, otherwise the fields named with a truthy value. */
export const getParameterCommand: Command = {
  name: 'getParameter',
  run(ctx) {
    if (ctx.body.getParameter === '*') return { ...PARAMETERS };
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(ctx.body)) {
      if (key === 'getParameter' || key.startsWith('$') || key === 'lsid') continue;
      if (key in PARAMETERS) out[key] = PARAMETERS[key];
    }
    if (Object.keys(out).length === 0) throw new StoreError('InvalidOptions', 'no option found to get');
    return out;
  },
};
