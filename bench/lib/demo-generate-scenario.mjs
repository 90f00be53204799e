/**
 * The `demo.generate` scenario (issue 31): `results-api demo --sessions N --tests 10 --seed 1`
 * into a fresh SQLite database, a process from spawn to exit, with its peak RSS. The fixed costs
 * are timed first and taken off, so the rate is the generator's per session: `demo --sessions
 * 10` (the demo's own test of 60 sessions with its video, and the run's four generated videos,
 * made by ffmpeg and stored once). What is left: sessions with details of every task type,
 * demographics, transcripts and a video row each, written 5,000 per transaction. The plain
 * alternative is the import scenario beside it (`sessions import` of bare sessions from a
 * file, no details, transcripts or videos): what writing the same number of sessions costs
 * without generating anything.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuSeconds, memoryMb, startNode, stop } from './processes.mjs';

/** Runs `demo` with `args` on a fresh database; its wall time, peak RSS and what it printed. */
async function timedDemo({ cli, cwd, work, env, args, timeoutSeconds, name }) {
  const path = join(work, `${name}.db`);
  const handle = startNode({
    name,
    script: cli,
    args: ['demo', '--json', ...args],
    // Port 1 answers nothing: demo's check of the server fails fast, as nothing is served here.
    env: { ...env, DATABASE_URL: `sqlite:${path}`, PORT: '1', XDG_CONFIG_HOME: join(work, `${name}-config`), MEDIA_URL: `file:${join(work, `${name}-media`)}` },
    cwd,
    logDir: work,
  });
  const started = performance.now();
  let peakRssMb = 0;
  // The CPU the process itself used (not ffmpeg's, a fixed cost), as of the last sample, at most
  // 200 ms before it exited: on a shared machine, wall time says as much about the others' load.
  let cpu = 0;
  let finished = false;
  const sampling = (async () => {
    while (!finished && handle.exitCode === undefined) {
      try {
        peakRssMb = Math.max(peakRssMb, memoryMb(handle.pid).peak);
        cpu = Math.max(cpu, cpuSeconds(handle.pid).get(handle.pid) ?? 0);
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
  try {
    if (timedOut) {
      await stop(handle);
      return { error: `timed out after ${timeoutSeconds} s` };
    }
    if (handle.exitCode !== 0) return { error: `exited with ${handle.exitCode}: ${handle.logTail(5)}` };
    const log = readFileSync(handle.logPath, 'utf8');
    const printed = JSON.parse(log.slice(log.indexOf('{'), log.lastIndexOf('}') + 1));
    return { seconds, cpuSeconds: cpu, peakRssMb, printed };
  } finally {
    for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
    rmSync(join(work, `${name}-media`), { recursive: true, force: true });
  }
}

/** The run timed for the fixed costs: the plain demo and the generated videos, with a handful of sessions. */
const FIXED_COST_SESSIONS = 10;

export async function runDemoGenerate({ cli, cwd, work, env, sessions, timeoutSeconds, importSessionsPerSec, log }) {
  log(`demo.generate: the fixed costs (demo --sessions ${FIXED_COST_SESSIONS}), then ${sessions.toLocaleString('en-US')} generated sessions over 10 tests`);
  const alone = await timedDemo({ cli, cwd, work, env, args: ['--sessions', String(FIXED_COST_SESSIONS), '--seed', '1'], timeoutSeconds, name: 'demo-alone' });
  if (alone.error) return { sessions, error: `demo alone: ${alone.error}`, sessionsPerSec: null };
  const tests = String(Math.min(10, sessions));
  const generated = await timedDemo({ cli, cwd, work, env, args: ['--sessions', String(sessions), '--tests', tests, '--seed', '1'], timeoutSeconds, name: 'demo-generate' });
  if (generated.error) return { sessions, error: generated.error, sessionsPerSec: null };
  const written = generated.printed.generated.tests.reduce((sum, t) => sum + t.sessions, 0);
  if (written !== sessions) return { sessions, error: `generated ${written} sessions, expected ${sessions}`, sessionsPerSec: null };
  const generateSeconds = Math.max(generated.seconds - alone.seconds, 0.001);
  const sessionsPerSec = Math.round((sessions - FIXED_COST_SESSIONS) / generateSeconds);
  const result = {
    method: `results-api demo --sessions N --tests 10 --seed 1 (CLI process, SQLite), less demo --sessions ${FIXED_COST_SESSIONS} (the demo and the shared videos)`,
    sessions,
    videos: generated.printed.generated.videos.length,
    demoAloneSeconds: Number(alone.seconds.toFixed(2)),
    seconds: Number(generated.seconds.toFixed(2)),
    demoAloneCpuSeconds: Number(alone.cpuSeconds.toFixed(2)),
    cpuSeconds: Number(generated.cpuSeconds.toFixed(2)),
    // CPU per generated session, the fixed run's taken off: what load on a shared machine changes least.
    cpuMsPerSession: Number(((1000 * Math.max(generated.cpuSeconds - alone.cpuSeconds, 0)) / (sessions - FIXED_COST_SESSIONS)).toFixed(3)),
    peakRssMb: Number(generated.peakRssMb.toFixed(1)),
    sessionsPerSec,
    // The generator's own count, timed inside the process (without start-up).
    reportedSessionsPerSec: generated.printed.generated.sessionsPerSecond,
    plainImportSessionsPerSec: importSessionsPerSec ?? null,
  };
  log(`demo.generate: ${sessionsPerSec.toLocaleString('en-US')} sessions/s with details, transcripts and ${result.videos} shared videos` +
    (importSessionsPerSec ? ` (bare sessions import: ${importSessionsPerSec.toLocaleString('en-US')} sessions/s)` : '') +
    `, ${result.cpuMsPerSession} ms CPU a session, peak RSS ${result.peakRssMb} MB`);
  return result;
}
