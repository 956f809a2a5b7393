import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { MongoClient } from 'mongodb';
import { connectDatabase } from '../../src/db/connect-database';
import { EmbeddedMongoServer } from '../../src/store/server';
import { startEntry } from '../helpers/entry';
import { nodeForOtherUsers } from '../helpers/other-user-node';

const ROOT = resolve(__dirname, '../..');
const asRoot = process.getuid?.() === 0;
/** Another local user: as root, child processes can run as `nobody` and meet the kernel's checks. */
const itAsRoot = asRoot ? it : it.skip;
const NOBODY = 65534;

const mode = (path: string): number => lstatSync(path).mode & 0o777;

/** The TCP addresses a process listens on, as the kernel reports them (Linux /proc). */
function tcpListeners(pid: number | 'self'): string[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const socket = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (socket) inodes.add(socket[1]);
    } catch {
      // closed meanwhile
    }
  }
  const listening: string[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(table)) continue;
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[3] === '0A' && inodes.has(fields[9])) listening.push(fields[1]);
    }
  }
  return listening.sort();
}
const hasProc = existsSync('/proc/self/fd') && existsSync('/proc/net/tcp');
const itWithProc = hasProc ? it : it.skip;

/** Connects to a Unix socket from a child process running as another user; resolves with the error code or "connected". */
function connectAs(uid: number, socketPath: string): Promise<string> {
  const script = `require('node:net').connect(process.argv[1]).on('connect', () => { console.log('connected'); process.exit(0); }).on('error', (e) => { console.log(e.code); process.exit(0); });`;
  return new Promise((res, rej) => {
    const child = spawn(nodeForOtherUsers(), ['-e', script, socketPath], {
      uid,
      gid: uid,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', rej);
    child.on('exit', () => res(out.trim()));
  });
}

/** Every entry of `dir` with its type and permission bits. */
function modes(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir)) {
    const stat = lstatSync(join(dir, name));
    out[name] =
      `${stat.isSocket() ? 'socket' : stat.isFile() ? 'file' : 'other'} ${(stat.mode & 0o777).toString(8)}`;
  }
  return out;
}

describe("the gateway's embedded store is reachable by its own user only", () => {
  let dirs: string[] = [];
  const makeDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'store-access-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    dirs = [];
  });

  itWithProc(
    'listens on a 0600 Unix socket in the 0700 data directory and opens no TCP port',
    async () => {
      const dataDir = join(makeDir(), 'data');
      const before = tcpListeners('self');
      const db = await connectDatabase({ dataDir, uri: '' });
      try {
        const socketPath = join(resolve(dataDir), 'mongod.sock');
        expect(db.embedded!.socketPath).toBe(socketPath);
        expect(db.embedded!.port).toBe(0);
        expect(db.uri).toBe(`mongodb://${encodeURIComponent(socketPath)}/`);
        expect(lstatSync(socketPath).isSocket()).toBe(true);
        expect(mode(socketPath)).toBe(0o600);
        expect(mode(dataDir)).toBe(0o700);
        expect(tcpListeners('self')).toEqual(before);
        // The URL still serves tests and tools that open their own client, as the same user.
        const client = await MongoClient.connect(db.uri);
        await client.db('probe').command({ ping: 1 });
        await client.close();
      } finally {
        await db.close();
      }
      expect(existsSync(join(dataDir, 'mongod.sock'))).toBe(false);
    },
  );

  itWithProc('in memory: the socket is in a fresh 0700 directory, removed at stop', async () => {
    const before = tcpListeners('self');
    const db = await connectDatabase({ inMemory: true, uri: '' });
    const socketPath = db.embedded!.socketPath!;
    const socketDir = resolve(socketPath, '..');
    try {
      expect(socketDir.startsWith(tmpdir())).toBe(true);
      expect(mode(socketDir)).toBe(0o700);
      expect(mode(socketPath)).toBe(0o600);
      expect(tcpListeners('self')).toEqual(before);
    } finally {
      await db.close();
    }
    expect(existsSync(socketDir)).toBe(false);
  });

  it('puts the socket in a private temp directory when the data directory path is too long for one', async () => {
    const dataDir = join(makeDir(), 'd'.repeat(60), 'e'.repeat(60));
    const db = await connectDatabase({ dataDir, uri: '' });
    const socketPath = db.embedded!.socketPath!;
    try {
      expect(socketPath.startsWith(tmpdir())).toBe(true);
      expect(socketPath.startsWith(dataDir)).toBe(false);
      expect(mode(resolve(socketPath, '..'))).toBe(0o700);
      await db.connection.db!.collection('c').insertOne({ kept: true });
    } finally {
      await db.close();
    }
    expect(existsSync(resolve(socketPath, '..'))).toBe(false);
  });

  itAsRoot(
    'refuses another local user at the socket (EACCES), in the data directory and in memory',
    async () => {
      const parent = makeDir();
      // Everything above the data directory is open, as a home directory often is: the data directory must hold alone.
      chmodSync(parent, 0o755);
      const db = await connectDatabase({ dataDir: join(parent, 'data'), uri: '' });
      try {
        expect(await connectAs(NOBODY, db.embedded!.socketPath!)).toBe('EACCES');
        expect(await connectAs(0, db.embedded!.socketPath!)).toBe('connected');
      } finally {
        await db.close();
      }
      const memory = await connectDatabase({ inMemory: true, uri: '' });
      try {
        expect(await connectAs(NOBODY, memory.embedded!.socketPath!)).toBe('EACCES');
      } finally {
        await memory.close();
      }
    },
  );

  it("replaces a socket left by a process that died, and never a live server's socket or a file", async () => {
    const dataDir = join(makeDir(), 'data');
    mkdirSync(dataDir, { mode: 0o700 });
    const stale = join(dataDir, 'mongod.sock');
    // A process that listened there and was killed: its socket file stays behind.
    const child = spawn(
      process.execPath,
      [
        '-e',
        `require('node:net').createServer().listen(process.argv[1], () => console.log('up'))`,
        stale,
      ],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    await new Promise((res) => child.stdout.once('data', res));
    child.kill('SIGKILL');
    await new Promise((res) => child.on('exit', res));
    expect(lstatSync(stale).isSocket()).toBe(true);

    const db = await connectDatabase({ dataDir, uri: '' });
    try {
      await db.connection.db!.collection('c').insertOne({ after: 'stale socket' });
      const live = join(makeDir(), 'live.sock');
      const first = await EmbeddedMongoServer.start({ socketPath: live });
      try {
        await expect(EmbeddedMongoServer.start({ socketPath: live })).rejects.toThrow(
          `${live} is in use by a running server`,
        );
      } finally {
        await first.stop();
      }
      const file = join(makeDir(), 'plain.sock');
      writeFileSync(file, 'not a socket');
      await expect(EmbeddedMongoServer.start({ socketPath: file })).rejects.toThrow(
        `${file} exists and is not a socket; refusing to replace it`,
      );
      expect(readFileSync(file, 'utf8')).toBe('not a socket');
    } finally {
      await db.close();
    }
  });
});

describe('the data directory is private (0700, files 0600)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'store-perms-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  itWithProc(
    'after the gateway seeded its data and generated its secrets; its only TCP port is HTTP',
    async () => {
      const dataDir = join(dir, 'data');
      const entry = await startEntry(dataDir, { SEED_DEMO: 'true' });
      try {
        expect(mode(dataDir)).toBe(0o700);
        const files = modes(dataDir);
        expect(files).toMatchObject({
          'mongod.sock': 'socket 600',
          'mongod.lock': 'file 600',
          'admin-token': 'file 600',
          'jwt-secret': 'file 600',
          'journal-0000000000.log': 'file 600',
        });
        for (const [name, kind] of Object.entries(files))
          expect([name, kind.split(' ')[1]]).toEqual([name, '600']);
        const port = Number(new URL(entry.url).port);
        const listeners = tcpListeners(entry.child.pid!);
        expect(listeners).toHaveLength(1);
        expect(parseInt(listeners[0].split(':')[1], 16)).toBe(port);
      } finally {
        entry.child.kill('SIGKILL');
        await entry.exited;
      }
      // Killed: the socket and the lock stay behind, and the next start takes them over.
      expect(lstatSync(join(dataDir, 'mongod.sock')).isSocket()).toBe(true);
      const again = await startEntry(dataDir);
      try {
        const res = await fetch(`${again.url}/teams`, {
          headers: {
            authorization: `Bearer ${readFileSync(join(dataDir, 'admin-token'), 'utf8').trim()}`,
          },
        });
        expect(res.status).toBe(200);
        // The demo company seeded before the kill is still there.
        expect(((await res.json()) as { teams: unknown[] }).teams.length).toBeGreaterThan(0);
      } finally {
        again.child.kill('SIGTERM');
        await again.exited;
      }
    },
  );

  it('tightens an existing 0755 directory with 0644 files at start, and keeps the data', async () => {
    const dataDir = join(dir, 'data');
    const first = await connectDatabase({ dataDir, uri: '' });
    await first.connection
      .db!.collection('members')
      .insertOne({ email: 'a@example.com', role: 'member' });
    await first.close();
    writeFileSync(join(dataDir, 'admin-token'), 'x'.repeat(32));
    chmodSync(dataDir, 0o755);
    for (const name of readdirSync(dataDir)) chmodSync(join(dataDir, name), 0o644);
    expect(modes(dataDir)).toEqual({
      'admin-token': 'file 644',
      'journal-0000000000.log': 'file 644',
    });

    const second = await connectDatabase({ dataDir, uri: '' });
    try {
      expect(mode(dataDir)).toBe(0o700);
      expect(modes(dataDir)).toEqual({
        'admin-token': 'file 600',
        'journal-0000000000.log': 'file 600',
        'mongod.lock': 'file 600',
        'mongod.sock': 'socket 600',
      });
      expect(
        await second.connection
          .db!.collection('members')
          .countDocuments({ email: 'a@example.com' }),
      ).toBe(1);
    } finally {
      await second.close();
    }
  });

  itAsRoot(
    'refuses to start on a directory it cannot make private, naming it and the fix',
    async () => {
      chmodSync(dir, 0o755);
      const dataDir = join(dir, 'data');
      mkdirSync(dataDir);
      chmodSync(dataDir, 0o755);
      // Owned by root and started as another user: chmod is not permitted.
      const script = `require(process.argv[1]).EmbeddedMongoServer.start({ dataDir: process.argv[2], privateSocket: true }).then(() => process.exit(0), (e) => { console.log(e.message); process.exit(3); });`;
      const child = spawn(
        nodeForOtherUsers(),
        [
          '-r',
          join(ROOT, 'test/helpers/ts-register.js'),
          '-e',
          script,
          join(ROOT, 'src/store/server.ts'),
          dataDir,
        ],
        {
          uid: NOBODY,
          gid: NOBODY,
          cwd: ROOT,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr.on('data', (c: Buffer) => (out += c.toString()));
      const code = await new Promise((res) => child.on('exit', res));
      expect(code).toBe(3);
      expect(out.trim()).toBe(
        `${dataDir} is open to other local users (mode 0755) and could not be made private (EPERM: operation not permitted, chmod '${dataDir}'). ` +
          `The data directory holds every document; fix it with: chmod -R go-rwx ${dataDir}`,
      );
      expect(readdirSync(dataDir)).toEqual([]);
      expect(statSync(dataDir).mode & 0o777).toBe(0o755);
    },
  );
});
