import type { Document } from 'bson';
import { StoreError } from '../errors';
import { isPlainObject } from '../storage/document-paths';
import type { Command } from './command';

/**
 * `getParameter` (admin only): `'*'` or `{allParameters: true}` returns all, otherwise the
 * parameters named; `{showDetails: true}` gives each as `{value, settableAtRuntime, settableAtStartup}`.
 */
export const getParameterCommand: Command = {
  name: 'getParameter',
  run(ctx) {
    if (ctx.db !== 'admin')
      throw new StoreError(
        'Unauthorized',
        'getParameter may only be run against the admin database.',
      );
    const options = ctx.body.getParameter;
    const all = options === '*' || (isPlainObject(options) && options.allParameters === true);
    const details = isPlainObject(options) && options.showDetails === true;
    const out: Document = {};
    for (const name of ctx.parameters.names()) {
      if (!all && !Object.hasOwn(ctx.body, name)) continue;
      const value = ctx.parameters.get(name);
      out[name] = details
        ? {
            value,
            settableAtRuntime: ctx.parameters.settableAtRuntime(name),
            settableAtStartup: true,
          }
        : value;
    }
    if (Object.keys(out).length === 0)
      throw new StoreError('InvalidOptions', 'no option found to get');
    return out;
  },
};
