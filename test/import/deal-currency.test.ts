import { dealAmount } from '../../src/import/deal-currency';

const EUR_DEAL = {
  amount: '10000',
  deal_currency_code: 'EUR',
  amount_in_home_currency: '10850',
  hs_exchange_rate: '1.085',
};

describe('dealAmount', () => {
  it('takes the amount as is for a deal in the counting currency, or one that names none', () => {
    expect(dealAmount(EUR_DEAL, { configured: 'EUR', home: null })).toEqual({
      kind: 'ok',
      value: 10000,
    });
    expect(
      dealAmount({ ...EUR_DEAL, deal_currency_code: 'eur' }, { configured: 'EUR', home: 'USD' }),
    ).toEqual({ kind: 'ok', value: 10000 });
    expect(dealAmount({ amount: '250.5' }, { configured: 'USD', home: null })).toEqual({
      kind: 'ok',
      value: 250.5,
    });
    expect(
      dealAmount({ amount: '250.5', deal_currency_code: null }, { configured: null, home: null }),
    ).toEqual({ kind: 'ok', value: 250.5 });
  });

  it('counts a deal in another currency with amount_in_home_currency only when the home currency is the counting one', () => {
    expect(dealAmount(EUR_DEAL, { configured: 'USD', home: 'USD' })).toEqual({
      kind: 'ok',
      value: 10850,
    });
    // No currency configured: the home currency is the one counted in.
    expect(dealAmount(EUR_DEAL, { configured: null, home: 'USD' })).toEqual({
      kind: 'ok',
      value: 10850,
    });
    expect(dealAmount(EUR_DEAL, { configured: 'USD', home: null })).toMatchObject({
      kind: 'skip',
      currency: 'EUR',
      reason: expect.stringMatching(
        /^is in EUR, not the configured USD: set the account's currency to EUR \(POST \/settings\/currencies .*home_currency/,
      ),
    });
    expect(dealAmount(EUR_DEAL, { configured: 'GBP', home: 'USD' })).toEqual({
      kind: 'skip',
      currency: 'EUR',
      reason:
        'is in EUR, not the configured GBP, and the portal\'s home currency is USD, not GBP either: set the account\'s currency to EUR (POST /settings/currencies {"currency": "EUR"}, GraphQL setCurrency) and import again to count deals in EUR',
    });
    expect(dealAmount(EUR_DEAL, { configured: null, home: null })).toMatchObject({
      kind: 'skip',
      reason: expect.stringMatching(/^is in EUR, and no currency is configured/),
    });
  });

  it('skips a deal in another currency whose amount_in_home_currency is missing or not a number', () => {
    expect(
      dealAmount(
        { ...EUR_DEAL, amount_in_home_currency: null },
        { configured: 'USD', home: 'USD' },
      ),
    ).toEqual({
      kind: 'skip',
      reason:
        'is in EUR, not the configured USD, and has no amount_in_home_currency to count it in USD',
    });
    expect(
      dealAmount(
        { ...EUR_DEAL, amount_in_home_currency: '1,085' },
        { configured: 'USD', home: 'USD' },
      ),
    ).toEqual({
      kind: 'skip',
      reason:
        'is in EUR, not the configured USD, and has amount_in_home_currency "1,085" to count it in USD',
    });
  });

  it('keeps the amount rules: no amount is 0 whatever the currency, non-numbers and negatives are skipped', () => {
    expect(
      dealAmount({ amount: null, deal_currency_code: 'EUR' }, { configured: 'USD', home: null }),
    ).toEqual({ kind: 'ok', value: 0 });
    expect(dealAmount({ amount: 'abc' }, { configured: 'USD', home: null })).toEqual({
      kind: 'skip',
      reason: 'has amount "abc", which is not a number',
    });
    expect(dealAmount({ amount: '-5' }, { configured: 'USD', home: null })).toEqual({
      kind: 'skip',
      reason: 'has a negative amount "-5"',
    });
  });
});
