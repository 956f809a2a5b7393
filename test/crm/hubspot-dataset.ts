// Internal test helper: datasets for test/helpers/hubspot-server.ts, built the way HubSpot's data looks.
import type { HubSpotOwner, HubSpotPipeline } from '../../src/import/hubspot.types';
import type { HubSpotDataset, StoredDeal } from '../../src/fake-crm/hubspot-server';

export const TOKEN = 'pat-na1-11111111-2222-3333-4444-555555555555';

export const PIPELINES: HubSpotPipeline[] = [
  {
    id: 'default',
    label: 'Sales Pipeline',
    displayOrder: 0,
    archived: false,
    stages: [
      {
        id: 'appointmentscheduled',
        label: 'Appointment scheduled',
        displayOrder: 0,
        metadata: { isClosed: 'false', probability: '0.2' },
      },
      {
        id: 'contractsent',
        label: 'Contract sent',
        displayOrder: 1,
        metadata: { isClosed: 'false', probability: '0.8' },
      },
      {
        id: 'closedwon',
        label: 'Closed won',
        displayOrder: 2,
        metadata: { isClosed: 'true', probability: '1.0' },
      },
      {
        id: 'closedlost',
        label: 'Closed lost',
        displayOrder: 3,
        metadata: { isClosed: 'true', probability: '0.0' },
      },
    ],
  },
  {
    id: '7654321',
    label: 'Renewals',
    displayOrder: 1,
    archived: false,
    stages: [
      {
        id: '7654322',
        label: 'Up for renewal',
        displayOrder: 0,
        metadata: { isClosed: 'false', probability: '0.5' },
      },
      {
        id: '7654323',
        label: 'Renewed',
        displayOrder: 1,
        metadata: { isClosed: 'true', probability: '1.0' },
      },
    ],
  },
];

/** `count` active owners (ids from 1001) in two teams, and one archived owner (id 9999). */
export function owners(count: number): HubSpotOwner[] {
  const active = Array.from({ length: count }, (_, i): HubSpotOwner => ({
    id: String(1001 + i),
    email: `owner${i + 1}@example.com`,
    firstName: `Owner`,
    lastName: `Number ${i + 1}`,
    userId: 500_000 + i,
    archived: false,
    teams: [{ id: i % 2 === 0 ? '41' : '42', name: i % 2 === 0 ? 'East' : 'West', primary: true }],
  }));
  return [
    ...active,
    {
      id: '9999',
      email: 'gone@example.com',
      firstName: 'Gone',
      lastName: 'Owner',
      userId: null,
      archived: true,
      teams: [],
    },
  ];
}

export const BASE_TIME = Date.parse('2026-05-01T00:00:00.000Z');

/**
 * `count` deals with ids from `firstId`, deal i last modified at BASE_TIME + i·stepMs (stepMs 0:
 * all at the same instant), every property the import reads set, and stage history.
 */
export function deals(count: number, { firstId = 20001, stepMs = 60_000 } = {}): StoredDeal[] {
  return Array.from({ length: count }, (_, i) => {
    const id = String(firstId + i);
    const modified = new Date(BASE_TIME + i * stepMs).toISOString();
    const created = new Date(BASE_TIME - 30 * 86_400_000 + i * 1000).toISOString();
    return {
      id,
      properties: {
        dealname: `Deal ${id}`,
        amount: String(1000 + i),
        pipeline: 'default',
        dealstage: i % 3 === 0 ? 'contractsent' : 'appointmentscheduled',
        createdate: created,
        closedate: null,
        hubspot_owner_id: String(1001 + (i % 3)),
        deal_currency_code: i % 2 === 0 ? 'EUR' : 'USD',
        amount_in_home_currency: String(1000 + i),
        hs_exchange_rate: i % 2 === 0 ? '1.085' : null,
        hs_lastmodifieddate: modified,
        hs_is_closed: 'false',
        hs_is_closed_won: 'false',
        hs_is_closed_lost: 'false',
        hs_date_entered_appointmentscheduled: created,
        hs_date_entered_contractsent: i % 3 === 0 ? modified : null,
        description: 'a property nobody asks for',
      },
      createdAt: created,
      updatedAt: modified,
    };
  });
}

/** Archived deals, archived on the days given. */
export function archivedDeals(archivedAt: string[]): StoredDeal[] {
  return archivedAt.map((at, i) => ({
    ...deals(1, { firstId: 90001 + i })[0]!,
    archived: true,
    archivedAt: at,
  }));
}

export function dataset(parts: Partial<HubSpotDataset> = {}): HubSpotDataset {
  return { pipelines: PIPELINES, owners: owners(3), deals: deals(5), ...parts };
}
