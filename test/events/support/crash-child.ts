// Internal test helper, run as a child process: makes one change through the services on a
// database (CRASH_URI by URI, else the embedded server on CRASH_DATA_DIR) and SIGKILLs itself at
// the point named by argv[2], by replacing the function the next step calls (a collection's
// method, or a module's export called from another module). What the database holds then is what
// a real crash at that point leaves.
import 'reflect-metadata';
import { Role } from '../../../src/auth/role';
import { connectDatabase } from '../../../src/db/connect-database';
import { ensureIndexes } from '../../../src/db/ensure-indexes';
import { DataAccess } from '../../../src/data/data-access';
import * as publish from '../../../src/events/outbox/publish';
import { EventModel } from '../../../src/models/event.model';
import { MemberModel } from '../../../src/models/member.model';
import { TeamModel } from '../../../src/models/team.model';
import { importCrmData } from '../../../src/services/import.service';
import { createMember, deleteMember } from '../../../src/services/member.service';
import { MAIN_FIXTURE, toImportBody } from '../../pipelines/fixtures/crm-fixture';
import { ADMIN } from '../../pipelines/support/database';
import { requestContext } from '../../pipelines/support/context';

const die = (): Promise<never> => {
  process.kill(process.pid, 'SIGKILL');
  return new Promise<never>(() => undefined);
};

async function main(): Promise<void> {
  const point = process.argv[2];
  const uri = process.env.CRASH_URI;
  const database = await connectDatabase(
    uri ? { uri } : { dataDir: process.env.CRASH_DATA_DIR, uri: '' },
  );
  await ensureIndexes();
  const ctx = requestContext(
    ADMIN,
    new DataAccess({ connection: database.connection, cacheMaxAgeMs: 0 }),
  );
  const member = {
    firstname: 'Kim',
    lastname: 'Killed',
    email: 'kim.killed@example.com',
    role: Role.MEMBER,
    teamId: 'east',
  };
  await TeamModel.create({ _id: 'east', name: 'East' });
  switch (point) {
    case 'after-write': {
      // The member is written with its event; the process dies before publishing it.
      (EventModel.collection as { insertMany: unknown }).insertMany = die;
      await createMember(ctx, member);
      break;
    }
    case 'after-publish': {
      // The event is in the outbox; the process dies before taking it out of the member.
      (MemberModel.collection as { updateOne: unknown }).updateOne = die;
      await createMember(ctx, member);
      break;
    }
    case 'before-delete':
    case 'after-delete': {
      const created = await createMember(ctx, member);
      console.log(`member ${created._id}`);
      if (point === 'before-delete') {
        // The deletion's event is written pending; the process dies before the deletion.
        (MemberModel as { deleteOne: unknown }).deleteOne = () => ({ exec: die });
      } else {
        // The member is deleted; the process dies before the event is confirmed.
        (publish as { takePositions: unknown }).takePositions = die;
      }
      await deleteMember(ctx, created._id);
      break;
    }
    case 'after-commit': {
      // The import commits; no gateway runs to publish its snapshot's events, and the process dies.
      await importCrmData(ctx, toImportBody(MAIN_FIXTURE, '2026-05-20T12:00:00Z') as never);
      await die();
      break;
    }
    default:
      throw new Error(`unknown crash point ${point}`);
  }
  console.error(`crash point ${point} was never reached`);
  process.exit(3);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(2);
});
