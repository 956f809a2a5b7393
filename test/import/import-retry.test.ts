import { randomUUID } from 'node:crypto';
import { SnapshotModel } from '../../src/models/snapshot.model';
import { startGateway, type TestGateway } from '../helpers/gateway';

const TIMEOUT_MS = 1000;
const DEALS = 2_000;

const stage = (id: string, order: number, isClosed: boolean, probability: number) => ({
  id,
  label: id,
  displayOrder: order,
  metadata: { isClosed: String(isClosed), probability: String(probability) },
});

/**
 * A company whose import outlives the time budget, and whose sending again does not: a backfill
 * writes one snapshot per month since 2024, each a step of its own (the event loop stays free
 * between them, so the retries are read and answered meanwhile).
 */
function company() {
  const deals = Array.from({ length: DEALS }, (_, i) => ({
    id: `d${i}`,
    properties: {
      hs_object_id: `d${i}`,
      dealname: `Deal ${i}`,
      createdate: '2024-01-15T10:00:00.000Z',
      closedate: '2026-03-01T00:00:00.000Z',
      amount: String(1000 + i),
      pipeline: 'default',
      dealstage: i % 3 === 0 ? 'qualified' : 'appointment',
      hubspot_owner_id: String(101 + (i % 4)),
    },
  }));
  return {
    pipelines: {
      results: [
        {
          id: 'default',
          label: 'Sales',
          displayOrder: 0,
          stages: [
            stage('appointment', 0, false, 0.2),
            stage('qualified', 1, false, 0.4),
            stage('won', 2, true, 1),
            stage('lost', 3, true, 0),
          ],
        },
      ],
    },
    owners: {
      results: [101, 102, 103, 104].map((id) => ({
        id: String(id),
        email: `owner${id}@example.com`,
        firstName: 'Owner',
        lastName: String(id),
        userId: id,
        teams: [{ id: 'sales', name: 'Sales', primary: true }],
      })),
    },
    deals: { results: deals },
    backfill: true,
  };
}

describe('a slow import and its retries', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({
      env: { REQUEST_TIMEOUT_MS: String(TIMEOUT_MS), BODY_LIMIT: String(16 * 1024 * 1024) },
    });
    expect(
      (await gw.request('POST', '/settings/currencies', { body: { currency: 'EUR' } })).status,
    ).toBe(200);
    expect(
      (await gw.request('POST', '/settings/periods', { body: { period: 'monthly' } })).status,
    ).toBe(200);
  });
  afterAll(async () => {
    await gw.stop();
  });

  it('says the import carries on, refuses retries while it runs, then answers its snapshot', async () => {
    const body = company();
    const headers = { 'idempotency-key': randomUUID() };
    const first = await gw.request('POST', '/crm/imports', { body, headers });
    expect(first.status).toBe(503);
    expect(first.body.message).toBe(
      `The write did not complete within ${TIMEOUT_MS} ms and carries on: its outcome is not known yet; retry with the same Idempotency-Key to learn it (409 while it is still running, then its answer)`,
    );

    // While it runs: the same key says so; the same data without a key names the running import.
    const keyed = await gw.request('POST', '/crm/imports', { body, headers });
    expect(keyed.status).toBe(409);
    expect(keyed.body.message).toMatch(
      /^A request with this Idempotency-Key \(POST \/crm\/imports, /,
    );
    const unkeyed = await gw.request('POST', '/crm/imports', { body });
    expect(unkeyed.status).toBe(409);
    expect(unkeyed.body.message).toMatch(
      /^Another import \(started \d{4}-\d\d-\d\dT[\d:.]+Z\) is running on this database: try again when it has finished; the same data sent again then answers the snapshot it made, without writing anything twice$/,
    );

    // Until it commits, a retry answers 409, or 408 when the busy database holds it past the
    // budget itself; a client asks again either way.
    let answer = keyed;
    for (let round = 0; [408, 409].includes(answer.status) && round < 600; round += 1) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      answer = await gw.request('POST', '/crm/imports', { body, headers });
    }
    expect(answer.status).toBe(200);
    expect(answer.headers['idempotent-replayed']).toBe('true');
    expect(answer.body).toMatchObject({ success: true, counts: { deals: DEALS } });
    const snapshotId = answer.body.snapshot_id;
    const written = await SnapshotModel.countDocuments();
    expect(written).toBeGreaterThan(20);

    // The same data without a key once it committed: its snapshot, nothing written.
    const again = await gw.request('POST', '/crm/imports', { body });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      message: 'This data was already imported; its snapshot is answered and nothing was written',
      snapshot_id: snapshotId,
    });
    expect(await SnapshotModel.countDocuments()).toBe(written);
  }, 240_000);
});
