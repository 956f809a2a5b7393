/**
 * Benchmark: an incremental import of 20 000 deals of which 2 % changed, on the embedded store
 * (in memory). Prints the median of several imports and what each wrote; asserts nothing.
 * Run with `npm run bench:import`. Target (issue 15): median under 2 s.
 */
import 'reflect-metadata';
import { OpportunityModel } from '../../src/models/opportunity.model';
import { importCrmData } from '../../src/services/import.service';
import { ADMIN, startDatabase } from '../pipelines/support/database';

const DEALS = 20_000;
const CHANGED = DEALS / 50;
const IMPORTS = 7;

function deal(i: number, amount: number) {
  return {
    id: `g${i}`,
    properties: {
      hs_object_id: `g${i}`,
      dealname: `Deal ${i}`,
      createdate: '2025-01-15T10:00:00.000Z',
      closedate: '2026-03-01T00:00:00.000Z',
      amount: String(amount),
      pipeline: 'default',
      dealstage: i % 3 === 0 ? 'qualifiedtobuy' : 'appointmentscheduled',
      hubspot_owner_id: String(101 + (i % 4)),
    },
  };
}

async function main(): Promise<void> {
  const db = await startDatabase();
  const stage = (id: string, order: number, isClosed: boolean, probability: number) => ({
    id,
    label: id,
    displayOrder: order,
    metadata: { isClosed: String(isClosed), probability: String(probability) },
  });
  const pipelines = {
    results: [
      {
        id: 'default',
        label: 'Sales',
        displayOrder: 0,
        stages: [
          stage('appointmentscheduled', 0, false, 0.2),
          stage('qualifiedtobuy', 1, false, 0.4),
          stage('closedwon', 2, true, 1),
          stage('closedlost', 3, true, 0),
        ],
      },
    ],
  };
  const owners = {
    results: [101, 102, 103, 104].map((id) => ({
      id: String(id),
      email: `owner${id}@example.com`,
      firstName: 'Owner',
      lastName: String(id),
      userId: id,
      archived: false,
    })),
  };
  const started = performance.now();
  await importCrmData(
    { principal: ADMIN },
    {
      pipelines,
      owners,
      deals: [{ results: Array.from({ length: DEALS }, (_, i) => deal(i, 100 + i)) }],
      snapshotAt: '2026-01-01T00:00:00Z',
    },
  );
  console.log(
    `full import of ${DEALS} deals: ${((performance.now() - started) / 1000).toFixed(2)} s`,
  );
  const times: number[] = [];
  for (let round = 1; round <= IMPORTS; round += 1) {
    const changed = Array.from({ length: CHANGED }, (_, k) => {
      const i = (k * 50 + round) % DEALS;
      return deal(i, 1000 * round + i);
    });
    const t = performance.now();
    const result = await importCrmData(
      { principal: ADMIN },
      {
        mode: 'incremental',
        deals: [{ results: changed }],
        snapshotAt: new Date(Date.UTC(2026, 0, 1 + round)).toISOString(),
      },
    );
    times.push(performance.now() - t);
    console.log(
      `incremental ${round}: ${(times.at(-1)! / 1000).toFixed(2)} s, ${result.changes.updated} changed, ${result.counts.deals} deals, ${await OpportunityModel.countDocuments()} versions stored`,
    );
  }
  const sorted = [...times].sort((a, b) => a - b);
  console.log(
    `median incremental import (${DEALS} deals, ${CHANGED} changed): ${(sorted[Math.floor(sorted.length / 2)] / 1000).toFixed(2)} s`,
  );
  await db.stop();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
