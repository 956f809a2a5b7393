/**
 * Internal (benchmark): the gateway in its own process, started by gateway.bench.ts.
 * Embedded (default): starts an in-memory embedded database, seeds the demo company with
 * `--deals N` and counts the commands its embedded server receives (driver heartbeats left out)
 * so the bench can divide them by requests. With BENCH_MONGODB_URI: connects to that database,
 * already seeded (the gateway never seeds an external database), and counts nothing.
 * BENCH_JWT_SECRET and BENCH_ADMIN_TOKEN, when set, are the gateway's secrets, so that two
 * instances on one store accept each other's tokens. Rate limiting is off (RATE_LIMIT=0): the
 * bench is one client sending far more than any one caller may.
 */
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import mongoose from 'mongoose';
import { Role } from '../../src/auth/role';
import { loadConfig } from '../../src/config';
import { connectDatabase } from '../../src/db/connect-database';
import { MemberModel } from '../../src/models/member.model';
import { seedDemo } from '../../src/seed/seed-demo';
import { LISTEN_BACKLOG } from '../../src/server/http-edge';
import { buildApp } from '../../src/server/build-app';
import { recordAndSign } from '../../src/services/token.service';

/** Commands the driver sends on its own (monitoring, sessions): not round trips of a request. */
const HEARTBEATS = new Set([
  'hello',
  'ismaster',
  'isMaster',
  'ping',
  'endSessions',
  'buildInfo',
  'buildinfo',
]);

export interface MemberToken {
  memberId: string;
  role: Role;
  token: string;
}

export interface GatewayReady {
  type: 'ready';
  port: number;
  adminToken: string;
  /** A JWT of every member, the admin member first: every request looks its member up. */
  memberTokens: MemberToken[];
  /** 0 when the database was seeded elsewhere. */
  seedSeconds: number;
  /** Whether database commands are counted (embedded only). */
  counts: boolean;
}

export type GatewayRequest =
  { type: 'reset' } | { type: 'count' } | { type: 'load' } | { type: 'stop' };
export type GatewayAnswer =
  | GatewayReady
  | {
      type: 'count';
      commands: number;
      byName: Record<string, number>;
      /** CPU time this process has used so far (user + system), in microseconds. */
      cpuMicros: number;
    }
  | GatewayLoad;

function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/** The answer to `load`: the process's memory now, and its event loop since the previous `load`. */
export interface GatewayLoad {
  type: 'load';
  rssBytes: number;
  /** 99th percentile of the event loop's delay, in milliseconds. */
  loopDelayP99Ms: number;
}

function send(message: GatewayAnswer): void {
  if (!process.send)
    throw new Error('gateway-server must run as a child process with an IPC channel');
  process.send(message);
}

async function main(): Promise<void> {
  const dealsArg = process.argv.indexOf('--deals');
  const deals = dealsArg > 0 ? Number(process.argv[dealsArg + 1]) : 3000;
  if (!Number.isInteger(deals) || deals < 1)
    throw new Error(`--deals must be a positive integer, got ${process.argv[dealsArg + 1]}`);
  const uri = process.env.BENCH_MONGODB_URI;

  const database = uri
    ? await connectDatabase({ uri })
    : await connectDatabase({ inMemory: true, uri: '' });
  const server = database.embedded;
  if (!uri && !server) throw new Error('connectDatabase did not start the embedded server');
  let seedSeconds = 0;
  if (!uri) {
    await Promise.all(mongoose.modelNames().map((name) => mongoose.model(name).init()));
    const seeded = performance.now();
    await seedDemo({ deals });
    seedSeconds = (performance.now() - seeded) / 1000;
  }

  const config = {
    ...loadConfig({ LOG_LEVEL: 'silent', RATE_LIMIT: '0' }),
    port: 0,
    host: '127.0.0.1',
  };
  const adminToken = process.env.BENCH_ADMIN_TOKEN || randomBytes(24).toString('base64url');
  const jwtSecret = new TextEncoder().encode(
    process.env.BENCH_JWT_SECRET || randomBytes(32).toString('base64url'),
  );
  const app = await buildApp({
    connection: database.connection,
    config,
    secrets: { jwtSecret, adminToken, generatedAdminToken: null },
  });
  await app.listen({ port: 0, host: '127.0.0.1', backlog: LISTEN_BACKLOG });

  const members = await MemberModel.find({}, { role: 1 }).sort({ _id: 1 }).lean();
  const admin = members.find((member) => member.role === Role.ADMIN);
  if (!admin) throw new Error('the demo seed made no admin member');
  const memberTokens: MemberToken[] = [];
  for (const member of [admin, ...members.filter((m) => m !== admin)]) {
    memberTokens.push({
      memberId: member._id,
      role: member.role,
      token: (await recordAndSign(app.tokenSigner, member, 'admin-token', 3600)).token,
    });
  }

  let commands = 0;
  const byName: Record<string, number> = {};
  server?.on('command', (name, _db, body) => {
    if (HEARTBEATS.has(name)) return;
    commands += 1;
    const key = `${name} ${String(body[name])}`;
    byName[key] = (byName[key] ?? 0) + 1;
  });

  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  process.on('message', (message: GatewayRequest) => {
    switch (message.type) {
      case 'load':
        send({
          type: 'load',
          rssBytes: process.memoryUsage.rss(),
          loopDelayP99Ms: loopDelay.percentile(99) / 1e6,
        });
        loopDelay.reset();
        break;
      case 'reset':
        commands = 0;
        for (const key of Object.keys(byName)) delete byName[key];
        send({ type: 'count', commands, byName: {}, cpuMicros: cpuMicros() });
        break;
      case 'count':
        send({ type: 'count', commands, byName: { ...byName }, cpuMicros: cpuMicros() });
        break;
      case 'stop':
        void app
          .close()
          .then(() => database.close())
          .then(() => process.exit(0));
        break;
    }
  });
  send({
    type: 'ready',
    port: (app.server.address() as AddressInfo).port,
    adminToken,
    memberTokens,
    seedSeconds,
    counts: server !== null,
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
