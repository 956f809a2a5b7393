import { ErrorCode } from '../../errors';
import * as settings from '../../services/settings.service';
import { envelopeSchema } from '../envelope-schema';
import { SetCurrencyBody, SetPeriodBody } from '../inputs/settings.inputs';
import { ok, type RouteDefinition } from '../route-definition';
import { adminOnly, EVERY_ROLE } from '../route-roles';

const TAG = 'Settings';

const CURRENCY_RESPONSE = envelopeSchema({ currency: { type: 'string' } }, ['currency']);
const PERIOD_RESPONSE = envelopeSchema(
  {
    period: { type: 'string', enum: ['weekly', 'monthly', 'quarterly'] },
    values: { type: 'array', items: { type: 'string' } },
  },
  ['period', 'values'],
);

const setCurrencyRoute: RouteDefinition<SetCurrencyBody> = {
  method: 'POST',
  path: '/settings/currencies',
  summary: 'Set the account currency (admin): an ISO 4217 code, any case',
  tag: TAG,
  authenticated: true,
  roles: adminOnly('set the currency'),
  input: SetCurrencyBody,
  response: CURRENCY_RESPONSE,
  handler: async (ctx, input) => {
    const currency = await settings.setCurrency(ctx, input.currency);
    return ok(`Currency set to ${currency}`, { currency });
  },
};

const getCurrencyRoute: RouteDefinition = {
  method: 'GET',
  path: '/settings/currencies',
  cacheable: true,
  summary: 'Read the account currency',
  tag: TAG,
  authenticated: true,
  roles: EVERY_ROLE,
  errors: [ErrorCode.NOT_FOUND],
  response: CURRENCY_RESPONSE,
  handler: async (ctx) => ok('Currency found', { currency: await settings.getCurrency(ctx) }),
};

const setPeriodRoute: RouteDefinition<SetPeriodBody> = {
  method: 'POST',
  path: '/settings/periods',
  summary: 'Set the period unit (admin); 409 while targets exist unless reset_targets is true',
  tag: TAG,
  authenticated: true,
  roles: adminOnly('set the period'),
  errors: [ErrorCode.CONFLICT],
  input: SetPeriodBody,
  response: PERIOD_RESPONSE,
  handler: async (ctx, input) => {
    const result = await settings.setPeriod(ctx, input.period, input.reset_targets === true);
    const message = !result.changed
      ? `Period is already ${result.period}`
      : result.targetsDeleted > 0
        ? `Period set to ${result.period}; ${result.targetsDeleted} target set(s) deleted`
        : `Period set to ${result.period}`;
    return ok(message, { period: result.period, values: result.values });
  },
};

const getPeriodRoute: RouteDefinition = {
  method: 'GET',
  path: '/settings/periods',
  cacheable: true,
  summary: 'Read the period unit and its values',
  tag: TAG,
  authenticated: true,
  roles: EVERY_ROLE,
  errors: [ErrorCode.NOT_FOUND],
  response: PERIOD_RESPONSE,
  handler: async (ctx) => {
    const { period, values } = await settings.getPeriod(ctx);
    return ok('Period found', { period, values });
  },
};

export const settingsRoutes: RouteDefinition[] = [
  setCurrencyRoute,
  getCurrencyRoute,
  setPeriodRoute,
  getPeriodRoute,
] as RouteDefinition[];
