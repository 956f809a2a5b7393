import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { formatImportSummary, reasonCategory } from '../../src/import/import-summary';
import { createProgressReporter } from '../../src/import/progress-reporter';
import { classifyHubSpotDocument, readHubSpotFiles } from '../../src/import/read-hubspot-files';
import { fixture, fixturePath } from './fixtures';

describe('readHubSpotFiles', () => {
  it('recognises separate pipelines, owners and deal-page files in any order', async () => {
    const read = await readHubSpotFiles([
      fixturePath('messy/deals-page-2.json'),
      fixturePath('messy/owners.json'),
      fixturePath('messy/pipelines.json'),
      fixturePath('messy/deals-page-1.json'),
    ]);
    expect(read.pipelines).toEqual(fixture('messy/pipelines.json'));
    expect(read.owners).toEqual(fixture('messy/owners.json'));
    expect(read.deals).toEqual([
      fixture('messy/deals-page-2.json'),
      fixture('messy/deals-page-1.json'),
    ]);
  });

  it('reads a combined file', async () => {
    const read = await readHubSpotFiles([fixturePath('backfill/combined.json')]);
    const combined = fixture('backfill/combined.json');
    expect(read).toEqual({
      pipelines: combined.pipelines,
      owners: combined.owners,
      deals: [combined.deals],
    });
  });

  it('names the file that cannot be read, is not JSON or is not a HubSpot document', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hubspot-'));
    const broken = path.join(dir, 'broken.json');
    writeFileSync(broken, '{ "results": [ ');
    const odd = path.join(dir, 'export.json');
    writeFileSync(odd, JSON.stringify({ results: [] }));
    await expect(readHubSpotFiles([path.join(dir, 'missing.json')])).rejects.toThrow(
      `${path.join(dir, 'missing.json')}: cannot read it (no such file)`,
    );
    await expect(readHubSpotFiles([broken])).rejects.toThrow(`${broken}: is not valid JSON`);
    await expect(readHubSpotFiles([odd])).rejects.toThrow(
      `${odd}: cannot tell which HubSpot document this is: "results" is empty; put pipeline, owner or deal in the file name`,
    );
    await expect(readHubSpotFiles([fixturePath('messy/owners.json')])).rejects.toThrow(
      '(arguments): no pipelines or deals document among the files; save every one of them from HubSpot',
    );
  });

  it('names the file, line and column of invalid JSON (an owners file with a leading-zero number)', async () => {
    const file = fixturePath('invalid/owners-leading-zero.json');
    await expect(readHubSpotFiles([file])).rejects.toThrow(
      `${file}: is not valid JSON at line 7, column 18: Unexpected number in JSON`,
    );
    const dir = mkdtempSync(path.join(tmpdir(), 'hubspot-'));
    const cut = path.join(dir, 'deals-1.json');
    writeFileSync(cut, '{\n  "results": [\n');
    await expect(readHubSpotFiles([cut])).rejects.toThrow(
      `${cut}: is not valid JSON at line 3, column 1: Unexpected end of JSON input`,
    );
  });

  it('refuses files of HubSpot legacy APIs, naming what they are and the v3 request to save instead', async () => {
    const cases: [string, string][] = [
      [
        'shapes/legacy-v1-deals-paged.json',
        'a legacy v1 deals body (GET /deals/v1/deal/paged: {deals, hasMore, offset}), which the import does not read: save the body of GET /crm/v3/objects/deals instead',
      ],
      [
        'shapes/legacy-v1-pipelines.json',
        'a legacy v1 pipelines body (GET /crm-pipelines/v1/pipelines/deals: pipelineId and stageId instead of id), which the import does not read: save the body of GET /crm/v3/pipelines/deals instead',
      ],
      [
        'shapes/owners-v2.json',
        'a legacy v2 owners body (GET /owners/v2/owners: an array of owners with ownerId), which the import does not read: save the body of GET /crm/v3/owners instead',
      ],
    ];
    for (const [relative, what] of cases) {
      const file = fixturePath(relative);
      await expect(readHubSpotFiles([fixturePath('shapes/pipelines.json'), file])).rejects.toThrow(
        `${file}: is ${what}`,
      );
    }
  });

  it('classifies an empty page by its file name', () => {
    expect(classifyHubSpotDocument('/tmp/hubspot-owners.json', { results: [] })).toBe('owners');
    expect(classifyHubSpotDocument('/tmp/deals-3.json', { results: [] })).toBe('deals');
    expect(() => classifyHubSpotDocument('/tmp/x.json', 'text')).toThrow(
      '/tmp/x.json: expected a JSON object or array, got string',
    );
  });
});

describe('formatImportSummary', () => {
  it('groups skipped items by reason with their ids', () => {
    const text = formatImportSummary({
      snapshotId: 'snap-1',
      snapshotAt: new Date('2026-02-15T12:00:00Z'),
      snapshotIds: ['old-1', 'snap-1'],
      counts: { pipelines: 2, stages: 10, deals: 8, owners: 4, teams: 3, membersCreated: 3 },
      mode: 'full',
      demoRemoved: false,
      skippedForCurrency: [],
      changes: { updated: 0, removed: 0 },
      skipped: [
        {
          id: 'd6',
          reason: 'deal has amount "abc", which is not a number; left out of every metric',
        },
        { id: 'd7', reason: 'deal has no stage; left out of every metric' },
        {
          id: 'd9',
          reason: 'deal has amount "1,0", which is not a number; left out of every metric',
        },
      ],
      reused: false,
    });
    expect(text).toBe(
      [
        'Import committed.',
        '  snapshot     snap-1 (2026-02-15T12:00:00.000Z)',
        '  backfilled   1 snapshots at past period ends',
        '  pipelines    2 (10 stages)',
        '  deals        8',
        '  owners       4 (3 new members, 3 teams)',
        '  skipped      3, by reason:',
        '         2  deal has amount "…", which is not a number; left out of every metric  [d6, d9]',
        '         1  deal has no stage; left out of every metric  [d7]',
      ].join('\n'),
    );
    expect(reasonCategory('stage of pipeline "x" has no metadata.isClosed; taken as open')).toBe(
      'stage of pipeline "…" has no metadata.isClosed; taken as open',
    );
  });
});

describe('createProgressReporter', () => {
  it('writes plain lines per step and per 10 % when not on a TTY', () => {
    const written: string[] = [];
    const stream = {
      isTTY: false,
      write: (s: string) => written.push(s),
    } as unknown as NodeJS.WriteStream;
    const progress = createProgressReporter(stream);
    progress.report({ step: 'owners', done: 0, total: 1 });
    progress.report({ step: 'owners', done: 1, total: 1 });
    for (let done = 0; done <= 100; done += 5)
      progress.report({ step: 'snapshots', done, total: 100 });
    progress.done();
    expect(written).toEqual([
      'members and teams: 0%\n',
      'members and teams: 100%\n',
      ...Array.from({ length: 11 }, (_, i) => `writing snapshots: ${i * 10}% (${i * 10}/100)\n`),
    ]);
  });

  it('redraws one line on a TTY and ends it', () => {
    const written: string[] = [];
    const stream = {
      isTTY: true,
      write: (s: string) => written.push(s),
    } as unknown as NodeJS.WriteStream;
    const progress = createProgressReporter(stream);
    progress.report({ step: 'snapshots', done: 50, total: 100 });
    progress.done();
    expect(written).toEqual([
      `\r[${'#'.repeat(15)}${'.'.repeat(15)}]  50% writing snapshots 50/100\u001b[K`,
      '\n',
    ]);
  });
});
