import { StoreError } from '../errors';
import type { Command } from './command';
import { isGenericArgument } from './generic-arguments';

/**
 * `setParameter` (admin only), with mongod's checks: every named parameter must exist and be
 * settable at runtime before any is set. The reply's `was` is the previous value of the first
 * parameter in name order (mongod walks them sorted).
 */
export const setParameterCommand: Command = {
  name: 'setParameter',
  run(ctx) {
    if (ctx.db !== 'admin')
      throw new StoreError(
        'Unauthorized',
        'setParameter may only be run against the admin database.',
      );
    const { parameters } = ctx;
    const names = Object.keys(ctx.body)
      .slice(1)
      .filter((name) => !isGenericArgument(name));
    for (const name of names) {
      if (!parameters.has(name)) {
        throw new StoreError(
          'InvalidOptions',
          `attempted to set unrecognized parameter [${name}], use help:true to see options `,
        );
      }
      if (!parameters.settableAtRuntime(name)) {
        throw new StoreError('IllegalOperation', `not allowed to change [${name}] at runtime`);
      }
    }
    if (names.length === 0)
      throw new StoreError(
        'InvalidOptions',
        'no option found to set, use help:true to see options ',
      );
    const sorted = [...names].sort();
    const was = parameters.get(sorted[0]);
    const previous = new Map(sorted.map((name) => [name, parameters.get(name)]));
    try {
      for (const name of sorted) parameters.set(name, ctx.body[name]);
    } catch (err) {
      // A bad value changes nothing, the parameters set before it included.
      for (const [name, value] of previous) parameters.set(name, value);
      throw err;
    }
    return { was };
  },
};
