/**
 * Throw-away Redis and PostgreSQL instances on free ports, for tests that stop and restart
 * them (never the shared ones). Each lives in a temporary directory removed by `destroy()`.
 * The binaries (redis-server; initdb, pg_ctl) must be on PATH: missing is a failure in CI
 * (CI=true) and a visible skip elsewhere, like test/helpers/postgres.ts.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './net.js';

const run = promisify(execFile);

/** Whether `bins` are on PATH; outside CI a missing one warns (the caller skips), in CI it throws. */
export function requireBinaries(...bins: string[]): boolean {
  const missing = bins.filter((bin) => spawnSync('sh', ['-c', `command -v ${bin}`]).status !== 0);
  if (missing.length === 0) return true;
  const message = `${missing.join(', ')} not on PATH`;
  if (process.env.CI === 'true') throw new Error(`${message}; CI=true, so this fails instead of skipping`);
  console.warn(`${message}, skipping`);
  return false;
}

async function until(what: string, check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface ThrowawayRedis {
  url: string;
  stop(): Promise<void>;
  /** On the same port, so clients reconnect to it. */
  start(): Promise<void>;
  /** Stops answering (SIGSTOP) while keeping its connections open, as a hung server does. */
  freeze(): void;
  thaw(): void;
  destroy(): Promise<void>;
}

export async function throwawayRedis(): Promise<ThrowawayRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'results-api-redis-'));
  let child: ChildProcess | undefined;
  const ping = async () => (await run('redis-cli', ['-p', String(port), 'ping'])).stdout.trim() === 'PONG';
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
      stdio: 'ignore',
    });
    await until('redis-server answering', ping);
  };
  const stop = async () => {
    const exiting = child;
    child = undefined;
    if (!exiting || exiting.exitCode !== null) return;
    const exited = new Promise((r) => exiting.once('exit', r));
    exiting.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    start,
    stop,
    freeze: () => void child?.kill('SIGSTOP'),
    thaw: () => void child?.kill('SIGCONT'),
    destroy: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface ThrowawayPostgres {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

/** initdb refuses root: as root, the cluster belongs to `postgres` (or `nobody`). */
function asClusterOwner(): { prefix: string[]; uid?: number; gid?: number } {
  if (userInfo().uid !== 0) return { prefix: [] };
  for (const user of ['postgres', 'nobody']) {
    const id = spawnSync('id', ['-u', user], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', user], { encoding: 'utf8' });
    if (id.status === 0) return { prefix: ['runuser', '-u', user, '--'], uid: Number(id.stdout), gid: Number(gid.stdout) };
  }
  throw new Error('running as root and neither user postgres nor nobody exists to own a test cluster');
}

export async function throwawayPostgres(): Promise<ThrowawayPostgres> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'results-api-pg-'));
  const owner = asClusterOwner();
  if (owner.uid !== undefined) chownSync(dir, owner.uid, owner.gid!);
  chmodSync(dir, 0o700);
  const data = join(dir, 'data');
  const as = (cmd: string, args: string[]) => {
    const [bin, ...rest] = [...owner.prefix, cmd, ...args];
    return run(bin!, rest, { cwd: dir });
  };
  await as('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '--no-instructions']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const start = async () => void (await as('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']));
  const stop = async () => void (await as('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']));
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop,
    destroy: async () => {
      await stop().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
