import { bestCopy, pickDealCopies } from '../../src/import/deal-copies';
import type { HubSpotDeal } from '../../src/import/hubspot.types';

const copy = (
  id: string,
  modified: string | null,
  extra: Record<string, string | null> = {},
): HubSpotDeal => ({
  id,
  properties: { dealname: id, hs_lastmodifieddate: modified, ...extra },
});

describe('bestCopy', () => {
  it('prefers the latest hs_lastmodifieddate, then the most properties with a value, then the first', () => {
    const older = copy('1', '2026-05-01T10:00:00Z', {
      pipeline: 'default',
      dealstage: 'closedwon',
    });
    const newer = copy('1', '2026-05-02T10:00:00Z');
    expect(bestCopy([older, newer])).toEqual({ deal: newer, decidedBy: 'modified' });
    const fuller = copy('1', '2026-05-01T10:00:00Z', { pipeline: 'default', amount: '' });
    const thinner = copy('1', '2026-05-01T10:00:00Z', { pipeline: null });
    expect(bestCopy([thinner, fuller])).toEqual({ deal: fuller, decidedBy: 'complete' });
    const same = copy('1', '2026-05-01T10:00:00Z');
    expect(bestCopy([same, { ...same }])).toEqual({ deal: same, decidedBy: 'first' });
  });

  it('falls back on updatedAt, and a copy with a date beats one without', () => {
    const dated = { id: '1', properties: { dealname: 'x' }, updatedAt: '2026-05-01T10:00:00Z' };
    const undated = copy('1', null, { pipeline: 'default', dealstage: 'x', amount: '1' });
    expect(bestCopy([undated, dated]).deal).toBe(dated);
  });
});

describe('pickDealCopies', () => {
  it('takes each deal once, in page order, with a note where its last copy stands', () => {
    const a1 = copy('a', '2026-05-01T10:00:00Z');
    const b = copy('b', '2026-05-01T10:00:00Z');
    const a2 = copy('a', '2026-05-03T10:00:00Z');
    const c = copy('c', '2026-05-01T10:00:00Z');
    const a3 = copy('a', '2026-05-02T10:00:00Z');
    expect(pickDealCopies([{ results: [a1, b] }, { results: [a2, c, a3] }])).toEqual([
      { deal: b },
      { deal: a2 },
      { deal: c },
      {
        note: {
          id: 'a',
          reason:
            'deal appears 3 times in the deal pages; the copy with the latest hs_lastmodifieddate kept',
        },
      },
    ]);
  });

  it('takes the same object sent in two pages once', () => {
    const a = copy('a', '2026-05-01T10:00:00Z');
    expect(pickDealCopies([{ results: [a] }, { results: [a] }])).toEqual([
      { deal: a },
      { note: { id: 'a', reason: 'deal appears twice in the deal pages; first occurrence kept' } },
    ]);
  });
});
