/**
 * The `sessions export` scenario (issue 13): one test of N sessions (1,000,000 in the full
 * run) exported completely by the real CLI (`results-api sessions export`, its own process)
 * from a server of the build. The test is far beyond the v2 listing's offset bound, so the
 * SDK reads it through the v1 completed-sessions cursor. Measured: time, sessions/s, and the
 * peak RSS of the exporting process and of the server, which must stay flat whatever N is.
 * The output is checked: exactly the test's COMPLETE sessions, each once.
 */
import { createReadStream, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { singleTestLayout } from './data.mjs';
import { memoryMb, startNode, stop } from './processes.mjs';
import { AUTH_SERVER_ID, childEnv, startServer } from './servers.mjs';
import { seedPostgres, seedSqlite } from './seed.mjs';

/** Sessions of forEachSession's test that are COMPLETE: every one but each fourth (i % 4 === 0). */
const completeOf = (count) => count - Math.ceil(count / 4);

/** Exports one seeded test through a server on `databaseUrl`; resolves to the measurements. */
async function exportOne({ name, databaseUrl, testId, credential, sessions, cli, cwd, work, logLevel, timeoutSeconds }) {
  const server = await startServer(`server-${name}`, databaseUrl, { logDir: work, logLevel, cwd, cli, workers: 1 });
  const out = join(work, `${name}.ndjson`);
  try {
    const started = performance.now();
    const handle = startNode({
      name: `export-${name}`,
      script: cli,
      args: ['sessions', 'export', '--test', testId, '--out', out],
      env: childEnv(logLevel, {
        RESULTS_API_CLIENT_ID: credential.clientId,
        RESULTS_API_CLIENT_SECRET: credential.clientSecret,
        RESULTS_API_AUTH_URL: server.url,
        RESULTS_API_BASE_URL: server.url,
        RESULTS_API_AUTH_SERVER_ID: AUTH_SERVER_ID,
      }),
      cwd,
      logDir: work,
    });
    let exporterPeakMb = 0;
    let serverPeakMb = 0;
    let finished = false;
    const sampling = (async () => {
      while (!finished && handle.exitCode === undefined) {
        try {
          exporterPeakMb = Math.max(exporterPeakMb, memoryMb(handle.pid).peak);
          serverPeakMb = Math.max(serverPeakMb, memoryMb(server.pid).peak);
        } catch {
          // It exited between the check and the read.
        }
        await sleep(200);
      }
    })();
    const timedOut = await Promise.race([handle.exited.then(() => false), sleep(timeoutSeconds * 1000, true, { ref: false })]);
    const seconds = (performance.now() - started) / 1000;
    finished = true;
    await sampling;
    const common = {
      method: 'results-api sessions export --out (CLI process) against results-api serve; the SDK pages by the v1 cursor',
      sessions,
      expected: completeOf(sessions),
      seconds: Number(seconds.toFixed(2)),
      exporterPeakRssMb: Number(exporterPeakMb.toFixed(1)),
      serverPeakRssMb: Number(serverPeakMb.toFixed(1)),
    };
    const failed = (error) => ({ ...common, error, sessionsPerSec: null });
    if (timedOut) {
      await stop(handle);
      return failed(`timed out after ${timeoutSeconds} s`);
    }
    if (handle.exitCode !== 0) return failed(`exited with ${handle.exitCode}: ${handle.logTail(5)}`);
    const { lines, distinct } = await countLines(out);
    if (lines !== common.expected || distinct !== lines) {
      return failed(`the export holds ${lines} lines (${distinct} distinct sessions), expected ${common.expected}`);
    }
    return { ...common, fileMb: Number((statSync(out).size / 1024 / 1024).toFixed(1)), sessionsPerSec: Math.round(lines / seconds) };
  } finally {
    await stop(server.handle);
    rmSync(out, { force: true });
  }
}

/** Lines of an NDJSON export and how many distinct sessionIds they hold (36-character ids, kept as strings). */
async function countLines(path) {
  const ids = new Set();
  let lines = 0;
  for await (const line of createInterface({ input: createReadStream(path) })) {
    if (line === '') continue;
    lines++;
    ids.add(line.slice(14, 50));
  }
  return { lines, distinct: ids.size };
}

/** Seeds one N-session test per database (SQLite always, PostgreSQL when `pgUrl`) and exports each. */
export async function runExport({ dist, cli, cwd, work, sessions, pgUrl, schemas, logLevel, timeoutSeconds, log, credential }) {
  const layout = singleTestLayout(sessions);
  const results = {};
  const path = join(work, 'export.db');
  log(`export: seeding a ${sessions.toLocaleString('en-US')}-session test in SQLite`);
  const sqlite = await seedSqlite(path, dist, { layout, credential });
  const common = { credential, sessions, cli, cwd, work, logLevel, timeoutSeconds };
  try {
    results.sqlite = await exportOne({ ...common, name: 'sqlite', databaseUrl: `sqlite:${path}`, testId: sqlite.testIds[0] });
  } finally {
    for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
  }
  log(`export (SQLite): ${results.sqlite.error ?? `${results.sqlite.sessionsPerSec.toLocaleString('en-US')} sessions/s`}`);
  if (pgUrl) {
    const schema = `bench_export_${Date.now().toString(36)}`;
    schemas.push(schema);
    log(`export: seeding a ${sessions.toLocaleString('en-US')}-session test in PostgreSQL (${schema})`);
    const pg = await seedPostgres(pgUrl, schema, dist, { layout, credential });
    results.pg = await exportOne({ ...common, name: 'pg', databaseUrl: pg.url, testId: pg.testIds[0] });
    log(`export (PostgreSQL): ${results.pg.error ?? `${results.pg.sessionsPerSec.toLocaleString('en-US')} sessions/s`}`);
  }
  return results;
}
