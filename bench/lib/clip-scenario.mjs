/**
 * The `clip.generate` scenario (issue 15): how long a clip takes from `clips create` to
 * GENERATED, cut by a real server's background job, against the same ffmpeg cut (and poster)
 * run alone on the same input, at the same nice level. The difference is what the job machinery costs: the claim
 * poll, the database writes, and storing the output. Both use the build's own ffmpeg
 * arguments (dist/clips/clip-job.js), so only the machinery differs.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { createHash, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { startServer } from './servers.mjs';
import { stop } from './processes.mjs';

const run = promisify(execFile);

const ffmpeg = (args) => run('ffmpeg', ['-nostdin', '-hide_banner', '-loglevel', 'error', ...args]);
/** The job runs ffmpeg at nice 10 (src/clips/run-ffmpeg.ts): so does the plain run, or a busy machine would favour it. */
const niceFfmpeg = (args) => run('nice', ['-n', '10', 'ffmpeg', '-nostdin', '-hide_banner', '-loglevel', 'error', ...args]);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const round = (ms) => Math.round(ms);

/**
 * Measures both paths `shape.rounds` times, interleaved; resolves to the measurements (or an
 * error). `shape`: the source video (`sourceSeconds`, `size`) and the clip (`startMs`, `endMs`).
 */
export async function runClipBench({ cli, cwd, work, logLevel, log, shape }) {
  const { sourceSeconds: SOURCE_SECONDS, size, rounds: ROUNDS } = shape;
  const CLIP = { startMs: shape.startMs, endMs: shape.endMs };
  const dir = join(work, 'clips');
  mkdirSync(dir, { recursive: true });
  const source = join(dir, 'source.mp4');
  log(`clip: generating a ${SOURCE_SECONDS} s ${size} test video`);
  await ffmpeg([
    '-f', 'lavfi', '-i', `testsrc=duration=${SOURCE_SECONDS}:size=${size}:rate=30`,
    '-f', 'lavfi', '-i', `sine=frequency=440:duration=${SOURCE_SECONDS}`,
    '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', '-y', source,
  ]);
  const { cutClipArgs, posterArgs } = await import('../../dist/clips/clip-job.js');
  const { loadConfig } = await import('../../dist/config.js');
  const { openRuntime } = await import('../../dist/runtime.js');
  const env = { DATABASE_URL: `sqlite:${join(dir, 'clips.db')}`, MEDIA_URL: `file:${join(dir, 'media')}`, LOG_LEVEL: 'silent' };
  const runtime = await openRuntime(loadConfig(env));
  let server;
  try {
    const sessionId = await seedVideo(runtime, source, SOURCE_SECONDS, size);
    server = await startServer('server-clips', env.DATABASE_URL, { logDir: work, logLevel, cwd, cli, workers: 1, env: { MEDIA_URL: env.MEDIA_URL } });
    const alone = [];
    const job = [];
    for (let i = 0; i < ROUNDS; i++) {
      let started = performance.now();
      await niceFfmpeg(cutClipArgs(source, CLIP.startMs, CLIP.endMs, join(dir, 'alone.mp4')));
      await niceFfmpeg(posterArgs(join(dir, 'alone.mp4'), join(dir, 'alone.jpg')));
      alone.push(performance.now() - started);

      started = performance.now();
      const clip = await runtime.store.clips.createClip({ sessionId, ...CLIP, name: `bench ${i}` }, { actor: 'bench' });
      for (;;) {
        const status = (await runtime.store.clips.findClip(clip.id))?.status;
        if (status === 'GENERATED') break;
        if (status === 'ERROR') throw new Error(`clip ${clip.id} ended in ERROR`);
        await sleep(10);
      }
      job.push(performance.now() - started);
      log(`clip round ${i + 1}: ffmpeg alone ${round(alone.at(-1))} ms, as a job ${round(job.at(-1))} ms`);
    }
    return {
      clipSeconds: (CLIP.endMs - CLIP.startMs) / 1000,
      source: `${SOURCE_SECONDS} s ${size} 30 fps H.264/AAC, ${(statSync(source).size / 1e6).toFixed(1)} MB`,
      rounds: ROUNDS,
      ffmpegAloneMs: { best: round(Math.min(...alone)), median: round(median(alone)) },
      jobMs: { best: round(Math.min(...job)), median: round(median(job)) },
      overheadMs: round(median(job) - median(alone)),
    };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  } finally {
    if (server) await stop(server.handle);
    await runtime.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A workspace, test and session holding `source` as its video (what `videos import` would record). */
async function seedVideo(runtime, source, seconds, size) {
  const [width, height] = size.split('x').map(Number);
  const by = { actor: 'bench' };
  const workspace = await runtime.store.directory.createWorkspace({ id: randomUUID(), name: 'Bench clips' }, by);
  const testId = randomUUID();
  await runtime.store.directory.createTest({ id: testId, workspaceId: workspace.id, title: 'Clips', productType: 'THINK_OUT_LOUD' }, by);
  const sessionId = randomUUID();
  const now = Date.now();
  await runtime.store.sessions.importSessions(testId, [{ sessionId, audienceId: null, status: 'COMPLETE', startTime: now, finishTime: now + 60_000 }], by);
  const objectKey = `videos/${sessionId}/source.mp4`;
  await runtime.media.storage.putFile(objectKey, source, 'video/mp4');
  await runtime.store.videos.saveVideo(
    {
      sessionId, objectKey, posterKey: null, contentSha256: createHash('sha256').update(await readFile(source)).digest('hex'),
      contentType: 'video/mp4', sizeBytes: statSync(source).size, durationMs: seconds * 1000, width, height, hasAudio: true,
      regions: { screen: { topLeftPoint: { x: 0, y: 0 }, widthPx: width, heightPx: height } },
    },
    by,
  );
  return sessionId;
}

/** The report's line. */
export function clipLine(c) {
  if (c.error) return `clip generation: failed (${c.error})`;
  return (
    `clip generation (a ${c.clipSeconds} s clip of a ${c.source}; median of ${c.rounds}): ` +
    `ffmpeg alone ${c.ffmpegAloneMs.median} ms (best ${c.ffmpegAloneMs.best}), as a server job from create to GENERATED ` +
    `${c.jobMs.median} ms (best ${c.jobMs.best}): the job machinery adds ${c.overheadMs} ms`
  );
}
