/**
 * Internal to the pipeline tests: imports a fixture through the import service and maps what the
 * gateway created (member ids, team ids, pipeline ids) back to the fixture's owners, so a test can
 * compute the expected values of any pipeline from the fixture rows.
 */
import { trusted } from 'mongoose';
import { CrmOwnerLinkModel } from '../../../src/models/crm-owner-link.model';
import { importCrmData } from '../../../src/services/import.service';
import { SETTINGS_ID, SettingsModel } from '../../../src/models/settings.model';
import { TargetModel } from '../../../src/models/target.model';
import type { CrmFixture } from '../fixtures/crm-fixture';
import { toServiceImport } from '../fixtures/crm-fixture';
import { ADMIN } from './database';
import { Scope } from './expected';

export interface ImportedScenario {
  snapshotId: string;
  /** HubSpot owner id → member id. */
  memberOf: Map<string, string>;
  /** Member id → HubSpot owner id. */
  ownerOf: Map<string, string>;
}

export async function importScenario(
  fixture: CrmFixture,
  snapshotAt: string,
): Promise<ImportedScenario> {
  // Each fixture is a whole picture of its own, unrelated to the one imported before: `force`
  // passes the guard that refuses a full import keeping fewer than half of the latest deals.
  const result = await importCrmData(
    { principal: ADMIN },
    {
      ...toServiceImport(fixture, snapshotAt),
      force: true,
    },
  );
  const links = await CrmOwnerLinkModel.find({
    _id: trusted({ $in: fixture.owners.map((o) => o.id) }),
  }).lean();
  const memberOf = new Map(links.map((l) => [l._id as string, l.memberId]));
  const ownerOf = new Map(links.map((l) => [l.memberId, l._id as string]));
  return { snapshotId: result.snapshotId, memberOf, ownerOf };
}

/** The fixture scope of a pipeline id: `<def>`, `<def>.team.<teamId>`, `<def>.member.<memberId>`. */
export function scopeOf(
  fixture: CrmFixture,
  scenario: ImportedScenario,
  pipelineId: string,
): Scope {
  const [definitionId, kind, ...rest] = pipelineId.split('.');
  const owner = rest.join('.');
  if (kind === undefined) return { definitionId, owners: null };
  if (kind === 'team')
    return {
      definitionId,
      owners: fixture.owners.filter((o) => o.teamId === owner).map((o) => o.id),
    };
  if (kind === 'member') return { definitionId, owners: [scenario.ownerOf.get(owner)!] };
  throw new Error(`unexpected pipeline id ${pipelineId}`);
}

/**
 * Sets a year's targets for the members of the given owners (`amounts` per owner id), as the
 * targets service stores them (the configured period and currency copied in).
 */
export async function setTargets(
  scenario: ImportedScenario,
  year: number,
  amounts: Record<string, number[]>,
): Promise<void> {
  const settings = await SettingsModel.findById(SETTINGS_ID).lean();
  for (const [ownerId, values] of Object.entries(amounts)) {
    const memberId = scenario.memberOf.get(ownerId)!;
    await TargetModel.deleteOne({ memberId, year });
    await TargetModel.create({
      memberId,
      year,
      period: settings!.period!,
      currency: settings!.currency!,
      amounts: values,
    });
  }
}

/** The sum of the targets of a scope's members for one period index, or undefined when none of them has targets. */
export function targetSum(
  owners: string[],
  amounts: Record<string, number[]>,
  index: number,
): number | undefined {
  const withTargets = owners.filter((o) => amounts[o] !== undefined);
  return withTargets.length === 0
    ? undefined
    : withTargets.reduce((sum, o) => sum + amounts[o][index], 0);
}
