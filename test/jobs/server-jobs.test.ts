/**
 * Jobs run by real server processes (`results-api serve`): a clip made with the CLI is cut by
 * the server; a server SIGKILLed in the middle of a cut leaves the job to the next server,
 * which finishes it once the lease runs out, with one output; two servers sharing PostgreSQL
 * never run the same job.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openRuntime, type Runtime } from '../../src/runtime.js';
import { clipObjectKey } from '../../src/store/clips.js';
import { runCli } from '../cli/run-cli.js';
import { generateTestVideo } from '../../src/media/ffmpeg/test-video.js';
import { attachVideo, probeDurationMs } from '../helpers/clip-videos.js';
import { describeIfPostgres, inSchema, uniqueSchemaName } from '../helpers/postgres.js';
import { seed } from '../helpers/seed.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { until } from '../helpers/until.js';
import { hasFfmpeg } from '../helpers/videos.js';

/** Real ffmpeg: without it these suites skip with a warning, and fail in CI. */
const haveFfmpeg = hasFfmpeg();

const dir = mkdtempSync(join(tmpdir(), 'results-api-server-jobs-'));
const shortVideo = join(dir, 'short.mp4');
const longVideo = join(dir, 'long.mp4');
beforeAll(async () => {
  if (haveFfmpeg) await Promise.all([generateTestVideo(shortVideo, { seconds: 4 }), generateTestVideo(longVideo, { seconds: 30 })]);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const by = { actor: 'test' };


describe.skipIf(!haveFfmpeg)('jobs in a server process (SQLite)', () => {
  const work = join(dir, 'sqlite');
  const env = {
    DATABASE_URL: `sqlite:${join(work, 'results.db')}`,
    MEDIA_URL: `file:${join(work, 'media')}`,
    JOB_LEASE_SECONDS: '2',
    HOME: work,
  };
  let runtime: Runtime;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    runtime = await openRuntime(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop('SIGKILL')));
    await runtime?.close();
  });

  const cli = (args: string[]) => runCli(args, { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', METRICS_PORT: '0', ...env }, work);

  it('clips create checks its arguments, then a server cuts the clip; jobs list shows the job', { timeout: 180_000 }, async () => {
    const s = await seed(runtime, { sessions: 1 });
    const sessionId = s.sessions[0]!.sessionId;
    await attachVideo(runtime, sessionId, shortVideo);

    const refusals = await Promise.all([
      cli(['clips', 'create', '--session', 'nope', '--start-ms', '0', '--end-ms', '1000', '--name', 'x']),
      cli(['clips', 'create', '--session', sessionId, '--start-ms', '2000', '--end-ms', '1000', '--name', 'x']),
      cli(['clips', 'create', '--session', sessionId, '--start-ms', '-5', '--end-ms', '1000', '--name', 'x']),
      cli(['clips', 'create', '--session', sessionId, '--start-ms', '0', '--end-ms', '9000', '--name', 'x']),
      cli(['clips', 'create', '--session', crypto.randomUUID(), '--start-ms', '0', '--end-ms', '1000', '--name', 'x']),
      cli(['clips', 'create', '--session', sessionId, '--start-ms', '0', '--end-ms', '1000', '--name', 'x', '--sentiment', 'meh']),
    ]);
    expect(refusals.map((r) => r.code)).toEqual([2, 2, 2, 1, 1, 2]);
    expect(refusals[5]!.stderr).toContain('--sentiment must be positive or negative (got "meh")');
    expect(refusals[0]!.stderr).toContain('--session must be a UUID');
    expect(refusals[1]!.stderr).toContain('--end-ms (1000) must be after --start-ms (2000)');
    expect(refusals[3]!.stderr).toContain('past its end at 4000 ms');
    expect(refusals[4]!.stderr).toContain('no session with id');
    expect(await runtime.store.clips.listClips(sessionId)).toEqual([]);

    const created = await cli(['clips', 'create', '--session', sessionId, '--start-ms', '500', '--end-ms', '2500', '--name', 'Hesitation', '--note', 'At the total', '--sentiment', 'Negative', '--json']);
    expect(created.code).toBe(0);
    const clip = JSON.parse(created.stdout) as { clipUuid: string; status: string; description: string };
    expect(clip).toMatchObject({ status: 'GENERATING', description: 'At the total', sentiment: 'negative' });
    const queued = JSON.parse((await cli(['jobs', 'list', '--state', 'queued', '--json'])).stdout) as { subject: string; kind: string; attempts: number }[];
    expect(queued).toMatchObject([{ subject: clip.clipUuid, kind: 'clip.generate', attempts: 0 }]);
    expect((await cli(['jobs', 'list', '--state', 'stuck'])).code).toBe(2);

    const server = await startServerProcess({ ...env });
    servers.push(server);
    await until('the server cut the clip', async () => (await runtime.store.clips.findClip(clip.clipUuid))?.status === 'GENERATED', 150_000);
    const table = (await cli(['jobs', 'list'])).stdout;
    expect(table).toMatch(new RegExp(`clip\\.generate\\s+${clip.clipUuid}\\s+done\\s+1/3`));
    const metrics = await (await fetch(server.metricsUrl!)).text();
    expect(metrics).toMatch(/^job_attempt_duration_seconds_count\{kind="clip.generate",outcome="done"\} 1$/m);
    await server.stop();
  });

  it('reels create checks its arguments; a server makes the reel', { timeout: 180_000 }, async () => {
    const s = await seed(runtime, { sessions: 1 });
    const sessionId = s.sessions[0]!.sessionId;
    await attachVideo(runtime, sessionId, shortVideo);
    const clips = [
      await runtime.store.clips.createClip({ sessionId, startMs: 0, endMs: 1000, name: 'One' }, by),
      await runtime.store.clips.createClip({ sessionId, startMs: 2000, endMs: 3500, name: 'Two' }, by),
    ];
    const other = await seed(runtime, { sessions: 1 });
    const refusals = await Promise.all([
      cli(['reels', 'create', '--test', s.testId, '--name', 'R', '--clips', '']),
      cli(['reels', 'create', '--test', s.testId, '--name', 'R', '--clips', 'nope']),
      cli(['reels', 'create', '--test', other.testId, '--name', 'R', '--clips', clips[0]!.id]),
      cli(['reels', 'create', '--test', s.testId, '--name', 'R', '--clips', `${clips[0]!.id},${clips[0]!.id}`]),
    ]);
    expect(refusals.map((r) => r.code)).toEqual([2, 2, 1, 1]);
    expect(refusals[2]!.stderr).toContain('of a session of another test');
    expect(refusals[3]!.stderr).toContain('listed twice');
    const created = await cli(['reels', 'create', '--test', s.testId, '--name', 'Best of', '--clips', `${clips[1]!.id}, ${clips[0]!.id}`, '--json']);
    expect(created.code).toBe(0);
    const reel = JSON.parse(created.stdout) as { reelId: string; clipIds: string[]; durationMs: number; status: string };
    expect(reel).toMatchObject({ clipIds: [clips[1]!.id, clips[0]!.id], durationMs: 2500, status: 'GENERATING' });
    const server = await startServerProcess({ ...env });
    servers.push(server);
    await until('the server made the reel', async () => (await runtime.store.reels.findReel(reel.reelId))?.status === 'GENERATED', 150_000);
    // The TOKEN column is what GET /usertesting/api/v1/highlightreel/{token} takes.
    const { token } = (await runtime.store.reels.findReel(reel.reelId))!;
    expect((await cli(['reels', 'list', '--test', s.testId])).stdout).toMatch(new RegExp(`${reel.reelId}\\s+${token}\\s+2\\s+2500\\s+GENERATED\\s+Best of`));
    await server.stop();
  });

  it('a server SIGKILLed while cutting: the next server finishes the job after the lease, with one output', async () => {
    const s = await seed(runtime, { sessions: 1 });
    const sessionId = s.sessions[0]!.sessionId;
    await attachVideo(runtime, sessionId, longVideo, 30_000);
    const first = await startServerProcess({ ...env });
    servers.push(first);
    const clip = await runtime.store.clips.createClip({ sessionId, startMs: 1000, endMs: 29_000, name: 'Long' }, by);
    await until('the first server is cutting', async () => (await runtime.store.jobs.get(clip.jobId))?.state === 'running', 150_000);
    await first.stop('SIGKILL');
    const orphaned = await runtime.store.jobs.get(clip.jobId);
    expect(orphaned).toMatchObject({ state: 'running', attempts: 1 });
    expect(await runtime.media.storage.stat(clipObjectKey(clip.id))).toBeNull();

    const second = await startServerProcess({ ...env });
    servers.push(second);
    await until('the second server finished the clip', async () => (await runtime.store.jobs.get(clip.jobId))?.state === 'done', 120_000);
    const done = await runtime.store.jobs.get(clip.jobId);
    expect(done).toMatchObject({ attempts: 2 });
    expect(done!.leaseOwner).toBeNull();
    // One clip and one poster; no partial upload left behind.
    expect(readdirSync(join(work, 'media', 'clips', clip.id)).sort()).toEqual(['clip.mp4', 'poster.jpg']);
    expect(Math.abs((await probeDurationMs(join(work, 'media', clipObjectKey(clip.id)))) - 28_000)).toBeLessThan(200);
    expect(await runtime.store.audit.list({ action: 'job.fail' })).toEqual([]);
    await second.stop();
  }, 180_000);
});

await describeIfPostgres('jobs in two server processes sharing PostgreSQL', (postgresUrl) => {
  if (!haveFfmpeg) return;
  const schema = uniqueSchemaName('t_jobs');
  const work = join(dir, 'postgres');
  const env = { DATABASE_URL: inSchema(postgresUrl, schema), MEDIA_URL: `file:${join(work, 'media')}`, JOB_CONCURRENCY: '2', HOME: work };
  let runtime: Runtime;
  let admin: pg.Client;
  let servers: ServerProcess[] = [];

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    runtime = await openRuntime(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop('SIGKILL')));
    await runtime?.close();
    await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin?.end();
  });

  it('every job runs exactly once across both processes', async () => {
    const s = await seed(runtime, { sessions: 1 });
    const sessionId = s.sessions[0]!.sessionId;
    await attachVideo(runtime, sessionId, shortVideo);
    const clips = [];
    for (let i = 0; i < 8; i++) clips.push(await runtime.store.clips.createClip({ sessionId, startMs: i * 400, endMs: i * 400 + 400, name: `Clip ${i}` }, by));
    servers = await Promise.all([startServerProcess(env), startServerProcess(env)]);
    await until('every clip is cut', async () => (await runtime.store.clips.listClips(sessionId)).every((c) => c.status === 'GENERATED'), 120_000);

    for (const clip of clips) expect(await runtime.store.jobs.get(clip.jobId)).toMatchObject({ state: 'done', attempts: 1 });
    const ranByEither = () =>
      servers.flatMap((server) =>
        server.lines.flatMap((line) => {
          const entry = JSON.parse(line) as { jobId?: string; outcome?: string };
          return entry.jobId && entry.outcome === 'done' ? [entry.jobId] : [];
        }),
      );
    // A job is recorded done before its process logs it: the last line may still be on its way.
    await until('every finished job is logged', async () => ranByEither().length >= clips.length, 10_000);
    const all = ranByEither();
    expect(all.sort()).toEqual(clips.map((c) => c.jobId).sort());
    expect(new Set(all).size).toBe(all.length);
  }, 180_000);
});
