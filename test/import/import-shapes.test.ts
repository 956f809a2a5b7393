import { jsonErrorLocation, jsonErrorReason } from '../../src/import/json-position';
import {
  legacyShapeOf,
  LEGACY_V1_DEALS,
  LEGACY_V1_PIPELINES,
  LEGACY_V2_OWNERS,
} from '../../src/import/legacy-shapes';
import { nextCursorOf, unfollowedPageOf } from '../../src/import/unfollowed-pages';
import { fixture } from './fixtures';

function parseError(text: string): Error {
  try {
    JSON.parse(text);
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected invalid JSON');
}

describe('legacyShapeOf', () => {
  it('tells v1 deals, v1 pipelines and v2 owners by shape, and nothing else', () => {
    expect(legacyShapeOf(fixture('shapes/legacy-v1-deals-paged.json'))).toBe(LEGACY_V1_DEALS);
    expect(legacyShapeOf(fixture('shapes/legacy-v1-pipelines.json'))).toBe(LEGACY_V1_PIPELINES);
    expect(legacyShapeOf(fixture('shapes/owners-v2.json'))).toBe(LEGACY_V2_OWNERS);
    for (const current of [
      'shapes/pipelines.json',
      'shapes/owners.json',
      'shapes/deals-currencies.json',
      'backfill/combined.json',
    ]) {
      expect(legacyShapeOf(fixture(current))).toBeNull();
    }
    expect(legacyShapeOf([fixture('shapes/deals-currencies.json')])).toBeNull();
    expect(legacyShapeOf([])).toBeNull();
  });
});

describe('unfollowedPageOf', () => {
  const page = (after?: string | number) => ({
    cursor: nextCursorOf({
      results: [{ id: '1' }],
      ...(after === undefined ? {} : { paging: { next: { after } } }),
    }),
    sent: 1,
  });

  it('finds nothing when one page has no paging.next, in whatever order', () => {
    expect(unfollowedPageOf([page('2'), page()], undefined, true)).toBeNull();
    expect(unfollowedPageOf([page(), page('2')], undefined, true)).toBeNull();
    expect(unfollowedPageOf([page()], undefined, false)).toBeNull();
  });

  it('names the last page when every page has a paging.next', () => {
    expect(unfollowedPageOf([page('2'), page(3)], undefined, true)).toEqual({
      field: 'deals[1].paging.next.after',
      message:
        'deals[1].paging.next.after is "3" but no page follows it: every one of the 2 deal pages has a paging.next, so the deals past it are missing; send every page, following paging.next.after until a page has none',
    });
    expect(unfollowedPageOf([page('2')], undefined, false)?.field).toBe('deals.paging.next.after');
    expect(unfollowedPageOf([page('2'), page(3)], 10, true)?.message).toContain(
      '(its total is 10 deals; 2 were sent)',
    );
  });

  it('reads the cursor as HubSpot sends it; a blank one is no cursor', () => {
    expect(
      nextCursorOf({ paging: { next: { after: 'MTAw', link: 'https://api.hubapi.com/…' } } }),
    ).toBe('MTAw');
    expect(nextCursorOf({ paging: { next: { after: '' } } })).toBeNull();
    expect(nextCursorOf({ paging: {} })).toBeNull();
  });
});

describe('jsonErrorLocation', () => {
  it('turns the offset of a parse error into a line and a column', () => {
    const text = '{\n  "results": [\n    {"userId": 088001}\n  ]\n}';
    const error = parseError(text);
    expect(jsonErrorLocation(text, error)).toEqual({ line: 3, column: 17 });
    expect(jsonErrorReason(error)).toBe('Unexpected number in JSON');
    const cut = '{\n  "results": [';
    expect(jsonErrorLocation(cut, parseError(cut))).toEqual({ line: 2, column: 15 });
  });
});
