/**
 * The `sessions import` scenario: an NDJSON file of N sessions for one test, imported into a
 * fresh SQLite database by the real CLI (`results-api sessions import`) in its own process.
 * The clock runs from spawning the process to its exit, so start-up, reading, validating
 * every line and writing all count: what an operator waits for.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, fsyncSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeNdjson } from './data.mjs';
import { memoryMb, startNode, stop } from './processes.mjs';

const by = { actor: 'bench' };
const clock = { now: () => Date.now() };

export async function runImport({ dist, cli, cwd, work, env, sessions, timeoutSeconds, log }) {
  const path = join(work, 'import.db');
  const file = join(work, 'import.ndjson');
  const testId = randomUUID();
  try {
    const store = await dist.openStore(`sqlite:${path}`, clock);
    try {
      await store.database.migrate();
      const workspace = await store.directory.createWorkspace({ id: randomUUID(), name: 'Import' }, by);
      await store.directory.createTest({ id: testId, workspaceId: workspace.id, title: 'Import', productType: 'SURVEY' }, by);
    } finally {
      await store.database.close();
    }

    const generated = performance.now();
    const fd = openSync(file, 'w');
    try {
      writeNdjson(0, sessions, (text) => writeSync(fd, text));
      // On disk before the clock starts: writing the generated file back is not the import's work.
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    const generateSeconds = (performance.now() - generated) / 1000;
    const fileMb = statSync(file).size / 1024 / 1024;
    log(`import: ${sessions.toLocaleString('en-US')} sessions, ${fileMb.toFixed(0)} MB of NDJSON; running sessions import`);

    const started = performance.now();
    const handle = startNode({
      name: 'import',
      script: cli,
      args: ['sessions', 'import', '--test', testId, '--json', file],
      env: { ...env, DATABASE_URL: `sqlite:${path}` },
      cwd,
      logDir: work,
    });
    let peakRssMb = 0;
    let finished = false;
    const sampling = (async () => {
      while (!finished && handle.exitCode === undefined) {
        try {
          peakRssMb = Math.max(peakRssMb, memoryMb(handle.pid).peak);
        } catch {
          // It exited between the check and the read.
        }
        await sleep(200);
      }
    })();
    // Unref'd: a timer that lost the race must not keep the harness alive.
    const timedOut = await Promise.race([
      handle.exited.then(() => false),
      sleep(timeoutSeconds * 1000, true, { ref: false }),
    ]);
    const seconds = (performance.now() - started) / 1000;
    finished = true;
    await sampling;
    const common = {
      method: 'results-api sessions import (CLI process, NDJSON)',
      sessions,
      fileMb: Number(fileMb.toFixed(1)),
      generateSeconds: Number(generateSeconds.toFixed(2)),
      peakRssMb: Number(peakRssMb.toFixed(1)),
      seconds: Number(seconds.toFixed(2)),
    };
    const failed = (error) => ({ ...common, error, sessionsPerSec: null });
    if (timedOut) {
      await stop(handle);
      return failed(`timed out after ${timeoutSeconds} s`);
    }
    if (handle.exitCode !== 0) return failed(`exited with ${handle.exitCode}: ${handle.logTail(5)}`);

    const check = await dist.openStore(`sqlite:${path}`, clock);
    let stored;
    try {
      stored = (await check.directory.getTest(testId))?.sessionCount;
    } finally {
      await check.database.close();
    }
    if (stored !== sessions) return failed(`the test holds ${stored} sessions after the import, expected ${sessions}`);
    return { ...common, sessionsPerSec: Math.round(sessions / seconds) };
  } finally {
    rmSync(file, { force: true });
    for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
  }
}
