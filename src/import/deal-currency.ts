import { parseNumber, text } from './parse-values';

/** The currencies an import counts amounts in (docs/importing.md, "Currencies"). */
export interface ImportCurrencies {
  /** The account's currency (POST /settings/currencies), upper case; null when not set. */
  configured: string | null;
  /** The HubSpot portal's home currency as the import was told (`home_currency`); null when not. */
  home: string | null;
}

/**
 * A deal's amount, or why it is skipped. `currency`: set when the deal is skipped only for being
 * in that currency, and would count were the account's currency set to it.
 */
export type DealAmount =
  { kind: 'ok'; value: number } | { kind: 'skip'; reason: string; currency?: string };

/**
 * The largest amount a deal may have (10^15, a thousand trillion in any currency): larger ones,
 * and the ones too large to be a number at all (`1e309`, `Infinity`), are skipped with a reason.
 * Bounded so, a sum of amounts over any number of deals stays a finite number (10^15 × 10^290
 * deals is still one), so no metric can become Infinity.
 */
export const MAX_AMOUNT = 1e15;

/** The reason for an amount that does not parse: out of range when it is a number too large to be one. */
function unparsable(key: string, raw: string): string {
  return Math.abs(Number(raw)) === Infinity
    ? outOfRange(key, raw)
    : `has ${key} "${raw}", which is not a number`;
}

function outOfRange(key: string, raw: unknown): string {
  return `has ${key} "${text(raw)}", outside the amounts counted (0 to 1e15)`;
}

const HOME_CURRENCY_SOURCE =
  "the portal's companyCurrency from HubSpot GET /account-info/v3/details";

/** The setting that decides the counting currency, and how to set it. */
function setTheCurrency(code: string): string {
  return `set the account's currency to ${code} (POST /settings/currencies {"currency": "${code}"}, GraphQL setCurrency) and import again`;
}

/**
 * A deal's amount in the currency the import counts in: the configured currency, or `home` when
 * none is configured. A deal without `deal_currency_code` is taken to be in it. A deal in another
 * currency counts with its `amount_in_home_currency` when the portal's home currency is that
 * currency; otherwise it is skipped with a reason saying what would let it count. Never added as
 * if it were in the counting currency.
 */
export function dealAmount(
  props: Record<string, string | null | undefined>,
  currencies: ImportCurrencies,
): DealAmount {
  const amount = parseNumber(props.amount);
  if (amount.kind === 'absent') return { kind: 'ok', value: 0 };
  if (amount.kind === 'invalid') return { kind: 'skip', reason: unparsable('amount', amount.raw) };
  if (amount.value < 0) return { kind: 'skip', reason: `has a negative amount "${amount.value}"` };
  if (amount.value > MAX_AMOUNT)
    return { kind: 'skip', reason: outOfRange('amount', props.amount) };
  const code = text(props.deal_currency_code)?.toUpperCase();
  const counting = currencies.configured ?? currencies.home;
  if (code === undefined || code === counting) return { kind: 'ok', value: amount.value };
  if (counting === null) {
    return {
      kind: 'skip',
      currency: code,
      reason: `is in ${code}, and no currency is configured to count it in: ${setTheCurrency(code)}, or send home_currency (${HOME_CURRENCY_SOURCE})`,
    };
  }
  if (currencies.home === null) {
    return {
      kind: 'skip',
      currency: code,
      reason: `is in ${code}, not the configured ${counting}: ${setTheCurrency(code)} to count deals in ${code}, or send home_currency (${HOME_CURRENCY_SOURCE}): its amount_in_home_currency counts when that is ${counting}`,
    };
  }
  if (currencies.home !== counting) {
    return {
      kind: 'skip',
      currency: code,
      reason: `is in ${code}, not the configured ${counting}, and the portal's home currency is ${currencies.home}, not ${counting} either: ${setTheCurrency(code)} to count deals in ${code}`,
    };
  }
  const home = parseNumber(props.amount_in_home_currency);
  if (home.kind === 'ok' && home.value > MAX_AMOUNT) {
    return {
      kind: 'skip',
      reason: `is in ${code}, not the configured ${counting}, and ${outOfRange('amount_in_home_currency', props.amount_in_home_currency)}`,
    };
  }
  if (home.kind !== 'ok' || home.value < 0) {
    const got =
      home.kind === 'absent'
        ? 'no amount_in_home_currency'
        : `amount_in_home_currency "${home.kind === 'ok' ? home.value : home.raw}"`;
    return {
      kind: 'skip',
      reason: `is in ${code}, not the configured ${counting}, and has ${got} to count it in ${counting}`,
    };
  }
  return { kind: 'ok', value: home.value };
}
