import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStoreAt } from '../helpers/stores.js';
import { sqliteDriver } from '../../src/store/sqlite/driver.js';
import { describeIfPostgres, dropSchemas, uniqueSchemaName } from '../helpers/postgres.js';
import { CLI_PATH, cliSandbox, runCli, type CliResult, type CliSandbox } from './run-cli.js';

/**
 * `sessions import` is all or nothing even when the process is killed (SIGKILL: no handler,
 * no cleanup) in the middle of writing: the database is exactly as before, and the same
 * import run again succeeds.
 */

const WS_ID = 'a3a7f2d4-0b7e-4a57-8f63-2f0d3c1a9e01';
const TEST_ID = '6f1c1a52-3f0e-4a59-9d1f-0d9b1b7d2a11';
const BIG = 300_000;
const EXISTING = 50;
const T0 = Date.UTC(2024, 0, 1);

const sessionId = (n: number) => `5e551000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

/** Sessions 0..count-1 as NDJSON; `status` lets a second file change the first sessions. */
function writeSessions(path: string, count: number, status: (n: number) => string = () => 'COMPLETE'): void {
  for (let from = 0; from < count; from += 10_000) {
    let block = '';
    for (let n = from; n < Math.min(count, from + 10_000); n++) {
      const start = new Date(T0 + n * 1000).toISOString();
      block += `{"sessionId":"${sessionId(n)}","audienceId":null,"status":"${status(n)}","startTime":"${start}","finishTime":null}\n`;
    }
    appendFileSync(path, block);
  }
}

/** What a reader sees of the test: every session, the stored count, and how many audit events exist. */
async function snapshot(databaseUrl: string) {
  const store = await openStoreAt(databaseUrl);
  try {
    return {
      sessions: await store.sessions.listSessions(TEST_ID, 0, BIG + 1),
      sessionCount: (await store.directory.getTest(TEST_ID))?.sessionCount,
      auditEvents: (await store.audit.list({ limit: 10_000 })).length,
    };
  } finally {
    await store.database.close();
  }
}

/** Polls `ready` until it holds, then kills the child; fails if the child ends first. */
async function killWhen(child: ChildProcess, ready: () => boolean | Promise<boolean>): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<CliResult>((done) =>
    child.once('close', (code, signal) => done({ code, signal, stdout, stderr })),
  );
  let finished = false;
  void exited.then(() => (finished = true));
  while (!finished && !(await ready())) await sleep(2);
  if (finished) throw new Error(`the import ended before it could be killed mid-way: ${stdout}${stderr}`);
  child.kill('SIGKILL');
  return exited;
}

function startImport(env: Record<string, string>, file: string): ChildProcess {
  return spawn(process.execPath, [CLI_PATH, 'sessions', 'import', '--test', TEST_ID, file], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

async function json<T>(result: Promise<CliResult>): Promise<T> {
  const { code, stdout, stderr } = await result;
  if (code !== 0) throw new Error(`exit ${code}: ${stderr}`);
  return JSON.parse(stdout) as T;
}

describe('sessions import killed mid-way (SQLite)', () => {
  const cli = cliSandbox();
  afterAll(() => cli.cleanup());

  it('leaves the sessions, their count and the audit log as they were; the import then succeeds', async () => {
    await cli.json(['workspaces', 'create', '--name', 'Lab', '--id', WS_ID]);
    await cli.json(['tests', 'create', '--workspace', WS_ID, '--title', 'T', '--id', TEST_ID]);
    const first = join(cli.dir, 'first.ndjson');
    writeSessions(first, EXISTING);
    expect(await cli.json(['sessions', 'import', '--test', TEST_ID, first])).toMatchObject({ inserted: EXISTING });
    const before = await snapshot(cli.databaseUrl);

    // The big file changes the existing sessions too, so updates are in flight when the kill lands.
    const big = join(cli.dir, 'big.ndjson');
    writeSessions(big, BIG, (n) => (n < EXISTING ? 'ABANDONED' : 'COMPLETE'));
    // Only the final transaction writes to the database (sessions are staged in a TEMP file
    // until then), so a write-ahead log past 8 MiB means that transaction is half done.
    const wal = `${cli.dbPath}-wal`;
    const walBytes = () => {
      try {
        return statSync(wal).size;
      } catch {
        return 0;
      }
    };
    const killed = await killWhen(startImport(cli.env, big), () => walBytes() >= 8 * 1024 * 1024);
    expect(killed.signal).toBe('SIGKILL');

    expect(await snapshot(cli.databaseUrl)).toEqual(before);
    const BetterSqlite3 = sqliteDriver();
    const db = new BetterSqlite3(cli.databaseUrl.slice('sqlite:'.length));
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      // The import may have dropped the sessionId index inside its transaction: it is back.
      expect(db.prepare("SELECT sql FROM sqlite_master WHERE name = 'sessions_by_id'").pluck().get()).toBe(
        'CREATE UNIQUE INDEX sessions_by_id ON sessions (session_id)',
      );
    } finally {
      db.close();
    }

    expect(await cli.json(['sessions', 'import', '--test', TEST_ID, big])).toEqual({
      testId: TEST_ID,
      inserted: BIG - EXISTING,
      updated: EXISTING,
      unchanged: 0,
    });
    const after = await snapshot(cli.databaseUrl);
    expect(after.sessionCount).toBe(BIG);
    expect(after.sessions).toHaveLength(BIG);
    expect(after.sessions.at(-1)).toMatchObject({ sessionId: sessionId(0), status: 'ABANDONED' });
  }, 180_000);
});

await describeIfPostgres('sessions import killed mid-way (PostgreSQL)', (postgresUrl) => {
  const schema = uniqueSchemaName('t_import_kill');
  const applicationName = `import_kill_${schema}`;
  const databaseUrl = new URL(postgresUrl);
  databaseUrl.searchParams.set('options', `-c search_path=${schema}`);
  // The import's own connection, told apart from every other in pg_stat_activity by its name.
  const importUrl = new URL(databaseUrl);
  importUrl.searchParams.set('application_name', applicationName);
  let cli: CliSandbox;
  let env: Record<string, string>;
  let admin: pg.Client;

  beforeAll(async () => {
    cli = cliSandbox();
    env = { ...cli.env, DATABASE_URL: databaseUrl.href };
    admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
  });
  afterAll(async () => {
    await admin?.end();
    await dropSchemas(postgresUrl, [schema]);
    cli?.cleanup();
  });

  /** Whether the import's connection is inside its transaction, copying or upserting sessions. */
  const upserting = async () =>
    (
      await admin.query(
        `SELECT 1 FROM pg_stat_activity
          WHERE application_name = $1 AND xact_start IS NOT NULL AND state = 'active'
            AND (query LIKE 'COPY session_import%' OR query LIKE '%INSERT INTO sessions%')`,
        [applicationName],
      )
    ).rowCount! > 0;
  const importConnections = async () =>
    (await admin.query('SELECT 1 FROM pg_stat_activity WHERE application_name = $1', [applicationName])).rowCount!;

  it('leaves the sessions, their count and the audit log as they were; the import then succeeds', async () => {
    await json(runCli(['workspaces', 'create', '--name', 'Lab', '--id', WS_ID, '--json'], env));
    await json(runCli(['tests', 'create', '--workspace', WS_ID, '--title', 'T', '--id', TEST_ID, '--json'], env));
    const first = join(cli.dir, 'first.ndjson');
    writeSessions(first, EXISTING);
    await json(runCli(['sessions', 'import', '--test', TEST_ID, first, '--json'], env));
    const before = await snapshot(databaseUrl.href);

    const big = join(cli.dir, 'big.ndjson');
    writeSessions(big, BIG, (n) => (n < EXISTING ? 'ABANDONED' : 'COMPLETE'));
    const killed = await killWhen(startImport({ ...env, DATABASE_URL: importUrl.href }, big), upserting);
    expect(killed.signal).toBe('SIGKILL');
    // The server rolls the transaction back once it sees the connection gone.
    while ((await importConnections()) > 0) await sleep(10);

    expect(await snapshot(databaseUrl.href)).toEqual(before);
    expect(await json(runCli(['sessions', 'import', '--test', TEST_ID, big, '--json'], env))).toEqual({
      testId: TEST_ID,
      inserted: BIG - EXISTING,
      updated: EXISTING,
      unchanged: 0,
    });
    expect((await snapshot(databaseUrl.href)).sessionCount).toBe(BIG);
  }, 300_000);
});
