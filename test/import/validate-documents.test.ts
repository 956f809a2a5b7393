import { BadUserInputError } from '../../src/errors';
import { validateCrmDocuments } from '../../src/import/validate-documents';
import { fixture, messyImport } from './fixtures';

function errorOf(run: () => unknown): BadUserInputError {
  try {
    run();
  } catch (error) {
    if (error instanceof BadUserInputError) return error;
    throw error;
  }
  throw new Error('expected a BadUserInputError, none was thrown');
}

describe('validateCrmDocuments', () => {
  it('accepts the messy fixture as is, one deal page or several', () => {
    const input = messyImport();
    expect(validateCrmDocuments(input).documents.deals).toHaveLength(2);
    // The last page alone is a whole list as far as its paging says (the first alone is not).
    expect(validateCrmDocuments({ ...input, deals: input.deals[1] }).documents.deals).toHaveLength(
      1,
    );
  });

  it('names the path when results is not an array', () => {
    const error = errorOf(() => validateCrmDocuments(fixture('invalid/results-not-array.json')));
    expect(error.fieldErrors).toEqual([
      { field: 'pipelines.results', message: 'pipelines.results must be an array, got an object' },
    ]);
    expect(error.message).toBe(
      'Invalid CRM import: pipelines.results must be an array, got an object; nothing was imported',
    );
  });

  it('names a pipeline without id and a deal page that is not a page', () => {
    const error = errorOf(() => validateCrmDocuments(fixture('invalid/pipeline-without-id.json')));
    expect(error.fieldErrors).toEqual([
      {
        field: 'pipelines.results[0].id',
        message: 'pipelines.results[0].id must be a non-empty string, got nothing',
      },
      {
        field: 'deals[1]',
        message:
          'deals[1] must be a body of HubSpot GET /crm/v3/objects/deals (an object), got the string "not a page"',
      },
    ]);
  });

  it('requires the three documents and checks snapshot_at and backfill', () => {
    const error = errorOf(() =>
      validateCrmDocuments({ pipelines: [], snapshotAt: '2025-13-01', backfill: 'yes' }),
    );
    expect(error.fieldErrors?.map((e) => e.field)).toEqual([
      'owners',
      'deals',
      'pipelines',
      'snapshot_at',
      'backfill',
    ]);
    expect(error.fieldErrors?.[2].message).toBe(
      'pipelines must be the body of HubSpot GET /crm/v3/pipelines/deals (an object), got an array',
    );
  });

  it('rejects duplicate pipeline and stage ids, and nested property values', () => {
    const input = messyImport();
    input.pipelines.results[1].id = 'renewals';
    input.pipelines.results[0].stages[1].id = 'r-won';
    input.deals[0].results[0].properties.amount = { value: 3 };
    const error = errorOf(() => validateCrmDocuments(input));
    expect(error.fieldErrors?.map((e) => e.field)).toEqual([
      'pipelines.results[0].stages[1].id',
      'pipelines.results[1].id',
      'deals[0].results[0].properties.amount',
    ]);
  });

  it('turns numeric ids into strings and parses snapshot_at with a zone', () => {
    const input = messyImport();
    input.owners.results[0].id = 101;
    const validated = validateCrmDocuments({
      ...input,
      snapshotAt: '2025-06-30T23:59:59+02:00',
      backfill: true,
    });
    expect(validated.documents.owners!.results[0].id).toBe('101');
    expect(validated.snapshotAt?.toISOString()).toBe('2025-06-30T21:59:59.000Z');
    expect(validated.backfill).toBe(true);
  });
});
