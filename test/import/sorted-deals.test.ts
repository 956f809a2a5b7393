import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import type { HubSpotDeal } from '../../src/import/hubspot.types';
import { prepareNormaliser } from '../../src/import/normalise';
import { RUN_SIZE, type SortedDeal, SortedDeals } from '../../src/import/sorted-deals';
import { PIPELINES as HUBSPOT_PIPELINES } from '../crm/hubspot-dataset';

/**
 * The import's sorted runs on the disk: three runs' worth of deal copies, each deal's two copies
 * read far apart so that they stand in different runs, merged back into one deal per id in id
 * order, the copy kept as the import's rules choose it, and the run file gone once closed.
 */

const PIPELINES = { results: HUBSPOT_PIPELINES };

function copy(id: number, amount: number, modified: string): HubSpotDeal {
  return {
    id: `d${String(id).padStart(6, '0')}`,
    properties: {
      dealname: `Deal ${id}`,
      amount: String(amount),
      pipeline: 'default',
      dealstage: id % 3 === 0 ? 'closedwon' : 'appointmentscheduled',
      createdate: '2026-01-05T00:00:00Z',
      closedate: '2026-03-01T00:00:00Z',
      hs_lastmodifieddate: modified,
    },
  };
}

async function all(deals: SortedDeals): Promise<SortedDeal[]> {
  const out: SortedDeal[] = [];
  for await (const deal of deals.deals()) out.push(deal);
  return out;
}

/** The run files this process holds open (Linux: its descriptors, as /proc lists them). */
function openRunFiles(): string[] {
  const files: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (/\/pipeline-gateway-import-[^/]+\/runs$/.test(target)) files.push(target);
    } catch {
      // Closed between the listing and the look.
    }
  }
  return files;
}

describe('SortedDeals', () => {
  it('merges copies spilled to the run file into one deal per id, in id order, the latest copy kept', async () => {
    const ids = Math.floor(1.5 * RUN_SIZE) + 7;
    const sorted = new SortedDeals(
      prepareNormaliser({ pipelines: PIPELINES, owners: { results: [] } }),
      {
        incremental: false,
        required: ['amount'],
      },
    );
    // Ids read from the highest down, twice: the second, later-modified copy of each deal comes
    // 1.5 runs after the first, in another run.
    for (let i = ids - 1; i >= 0; i -= 1)
      await sorted.add(copy(i, 100 + i, '2026-05-01T00:00:00Z'));
    for (let i = ids - 1; i >= 0; i -= 1)
      await sorted.add(copy(i, 200 + i, '2026-05-02T00:00:00Z'));
    expect(sorted.read).toEqual({ copies: 2 * ids, live: 2 * ids, present: new Set(['amount']) });
    const files = openRunFiles();
    expect(files).toHaveLength(1);
    expect(existsSync(files[0])).toBe(true);

    // Taken twice, as backfill does: the same deals each time.
    for (let pass = 0; pass < 2; pass += 1) {
      const deals = await all(sorted);
      expect(deals).toHaveLength(ids);
      deals.forEach((deal, i) => {
        expect(deal.id).toBe(`d${String(i).padStart(6, '0')}`);
        expect(deal.deal?.amount).toBe(200 + i);
        expect(deal.deal?.outcome).toBe(i % 3 === 0 ? 'won' : 'open');
        expect(deal.notes.map((note) => note.item)).toEqual([
          {
            id: deal.id,
            reason:
              'deal appears twice in the deal pages; the copy with the latest hs_lastmodifieddate kept',
          },
        ]);
        // The note stands where the deal's last copy was read.
        expect(deal.notes[0].pos).toBe(2 * ids - 1 - i);
      });
    }

    await sorted.close();
    expect(openRunFiles()).toEqual([]);
    expect(existsSync(path.dirname(files[0]))).toBe(false);
  });

  it('keeps an import of fewer deals than a run in memory, off the disk', async () => {
    const sorted = new SortedDeals(
      prepareNormaliser({ pipelines: PIPELINES, owners: { results: [] } }),
      {
        incremental: false,
        required: [],
      },
    );
    for (let i = 9; i >= 0; i -= 1) await sorted.add(copy(i, i, '2026-05-01T00:00:00Z'));
    expect((await all(sorted)).map((deal) => deal.id)).toEqual(
      Array.from({ length: 10 }, (_, i) => `d00000${i}`),
    );
    expect(openRunFiles()).toEqual([]);
    await sorted.close();
  });
});
