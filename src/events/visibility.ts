import type { Principal } from '../auth/principal';
import { Role } from '../auth/role';
import type { EventAudience, EventDoc } from '../models/event.model';
import { canReadTargets } from '../services/member-access';

/**
 * The data of `event` as `principal` may see it, by the rules of the role table: everyone sees
 * what every role may read; admins alone see sync runs; values derived from targets go only to a
 * reader of every member's targets they sum (member-access.ts `canReadTargets`), the others get
 * the event without them, or not at all when the values are the event. Null: not for this reader
 * (a principal of null stands for nobody in particular: a webhook whose owner is gone).
 */
export function eventDataFor(
  principal: Principal | null,
  event: Pick<EventDoc, 'data' | 'privacy'>,
): Record<string, unknown> | null {
  const { privacy } = event;
  switch (privacy.kind) {
    case 'public':
      return event.data;
    case 'admins':
      return principal?.role === Role.ADMIN ? event.data : null;
    case 'targets': {
      const readable =
        principal !== null &&
        privacy.of.every(({ memberId, teamId }) =>
          canReadTargets(principal, { _id: memberId, teamId }),
        );
      if (readable) return event.data;
      if (privacy.redact.length === 0) return null;
      const data = { ...event.data };
      for (const field of privacy.redact) delete data[field];
      return data;
    }
    default:
      return null;
  }
}

/** A filter on what an event is about: a pipeline, a team, or both. */
export interface AudienceFilter {
  pipelineId?: string | null;
  teamId?: string | null;
}

/**
 * Whether an event passes a filter: it concerns the pipeline and the team named, or it concerns
 * no pipeline and no team at all (account-wide: a snapshot, a sync, the settings), which every
 * filter lets through.
 */
export function passesFilter(audience: EventAudience, filter: AudienceFilter): boolean {
  if (audience.pipelineIds.length === 0 && audience.teamIds.length === 0) return true;
  if (filter.pipelineId && !audience.pipelineIds.includes(filter.pipelineId)) return false;
  if (filter.teamId && !audience.teamIds.includes(filter.teamId)) return false;
  return true;
}
