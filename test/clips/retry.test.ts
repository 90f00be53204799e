/**
 * Issue 30 item 4: a failed clip or highlight reel can be retried, from the admin API and the
 * CLI (locally and through --endpoint), audited; a retry that would fail again is refused with
 * the reason (not failed: 409, exit 1; no longer cuttable: 400, exit 1), and a clip or reel of
 * a test the caller may not see answers as a missing one does. (The console's Retry buttons:
 * test/admin/console-readable.test.ts.)
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateAdminClientId } from '../../src/admin/admin-client-ids.js';
import { ManualClock } from '../../src/clock.js';
import { generateTestVideo } from '../../src/media/ffmpeg/test-video.js';
import { generateClientSecret } from '../../src/oauth/client-secrets.js';
import type { Clip } from '../../src/store/clips.js';
import { signedInAdmin, startAdminTestApp } from '../helpers/admin-app.js';
import { attachVideo } from '../helpers/clip-videos.js';
import { failJobs } from '../helpers/failed-jobs.js';
import { seed, type Seeded } from '../helpers/seed.js';
import { hasFfmpeg } from '../helpers/videos.js';
import { runCli } from '../cli/run-cli.js';

const haveFfmpeg = hasFfmpeg();
const dir = mkdtempSync(join(tmpdir(), 'results-api-retry-'));
const fourSeconds = join(dir, 'four.mp4');
const twoSeconds = join(dir, 'two.mp4');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(async () => {
  if (haveFfmpeg) await Promise.all([generateTestVideo(fourSeconds, { seconds: 4 }), generateTestVideo(twoSeconds, { seconds: 2 })]);
}, 60_000);

const by = { actor: 'test' };
const clock = new ManualClock(Date.now());
const app = haveFfmpeg ? await startAdminTestApp({ clock }) : undefined;

describe.skipIf(!haveFfmpeg)('retrying a failed clip or reel', () => {
  let s: Seeded;
  let sessionId: string;
  const store = () => app!.t.runtime.store;
  /** A clip of the session's four seconds, every attempt of which failed. */
  const failedClip = async (startMs = 1000, endMs = 3000): Promise<Clip> => {
    const clip = await store().clips.createClip({ sessionId, startMs, endMs, name: `Clip ${startMs}` }, by);
    await failJobs(store(), clock, [clip.jobId]);
    return clip;
  };

  beforeAll(async () => {
    s = await seed(app!.t.runtime, { sessions: 2 });
    sessionId = s.sessions[0]!.sessionId;
    await attachVideo(app!.t.runtime, sessionId, fourSeconds);
  });

  it('the admin API starts a failed clip over (audited), and refuses one that is not failed (409) or no longer cuttable (400)', async () => {
    const operator = await signedInAdmin(app!, 'operator');
    const generating = await store().clips.createClip({ sessionId, startMs: 0, endMs: 1000, name: 'Fresh' }, by);
    const notFailed = await operator.request('POST', `/admin/api/clips/${generating.id}/retry`);
    expect(notFailed.status).toBe(409);
    expect(await notFailed.json()).toMatchObject({ type: 'urn:results-api:admin:not-failed', detail: `clip ${generating.id} is GENERATING, not ERROR: only a failed clip can be retried` });

    const clip = await failedClip();
    expect((await store().clips.findClip(clip.id))?.status).toBe('ERROR');
    const retried = await operator.request('POST', `/admin/api/clips/${clip.id.toUpperCase()}/retry`);
    expect(retried.status).toBe(200);
    expect(await retried.json()).toMatchObject({ clipUuid: clip.id, status: 'GENERATING', lastError: null });
    expect(await store().jobs.get(clip.jobId)).toMatchObject({ state: 'queued', attempts: 0 });
    expect((await store().audit.list({ action: 'clip.retry', subject: clip.id })).map((e) => e.actor)).toEqual([`admin:${operator.email}`]);

    // Its video replaced by a shorter one: the range can never be cut again, and the refusal says why.
    const stale = await failedClip(2500, 3500);
    const other = s.sessions[1]!.sessionId;
    await attachVideo(app!.t.runtime, other, fourSeconds);
    const late = await store().clips.createClip({ sessionId: other, startMs: 2500, endMs: 3500, name: 'Late' }, by);
    await failJobs(store(), clock, [late.jobId]);
    await attachVideo(app!.t.runtime, other, twoSeconds, 2000);
    const uncut = await operator.request('POST', `/admin/api/clips/${late.id}/retry`);
    expect(uncut.status).toBe(400);
    expect(await uncut.json()).toMatchObject({ type: 'urn:results-api:admin:out-of-range', detail: 'the clip must end within the video: --end-ms 3500 is past its end at 2000 ms' });
    expect((await store().clips.findClip(late.id))?.status).toBe('ERROR');
    expect((await operator.request('POST', `/admin/api/clips/${stale.id}/retry`)).status).toBe(200);
  });

  it('a clip or reel of a workspace the account admin does not administer answers as a missing one; support staff may not retry', async () => {
    const clip = await failedClip();
    const reel = await store().reels.createReel({ testId: s.testId, name: 'Theirs', clipIds: [clip.id] }, by);
    const stranger = await signedInAdmin(app!, 'account-admin');
    const foreign = await stranger.request('POST', `/admin/api/clips/${clip.id}/retry`);
    const missing = await stranger.request('POST', '/admin/api/clips/00000000-0000-4000-8000-000000000000/retry');
    expect([foreign.status, missing.status]).toEqual([404, 404]);
    expect((await foreign.json() as { detail: string }).detail).toBe(`no clip with id ${clip.id}`);
    expect((await stranger.request('POST', `/admin/api/reels/${reel.id}/retry`)).status).toBe(404);
    const support = await signedInAdmin(app!, 'support');
    expect((await support.request('POST', `/admin/api/clips/${clip.id}/retry`)).status).toBe(403);
    expect((await store().clips.findClip(clip.id))?.status).toBe('ERROR');
  });

  it('the admin API starts a failed reel over, and names a clip of it that can no longer be cut', async () => {
    const operator = await signedInAdmin(app!, 'operator');
    const clip = await store().clips.createClip({ sessionId, startMs: 0, endMs: 1000, name: 'Part' }, by);
    const reel = await store().reels.createReel({ testId: s.testId, name: 'Reel', clipIds: [clip.id] }, by);
    expect((await operator.request('POST', `/admin/api/reels/${reel.id}/retry`)).status).toBe(409);
    await failJobs(store(), clock, [clip.jobId, reel.jobId]);
    const retried = await operator.request('POST', `/admin/api/reels/${reel.id}/retry`);
    expect(retried.status).toBe(200);
    expect(await retried.json()).toMatchObject({ reelId: reel.id, status: 'GENERATING' });
    expect((await store().audit.list({ action: 'reel.retry', subject: reel.id })).map((e) => e.actor)).toEqual([`admin:${operator.email}`]);

    const other = s.sessions[1]!.sessionId;
    await attachVideo(app!.t.runtime, other, fourSeconds);
    const late = await store().clips.createClip({ sessionId: other, startMs: 2500, endMs: 3500, name: 'Late part' }, by);
    const broken = await store().reels.createReel({ testId: s.testId, name: 'Broken', clipIds: [clip.id, late.id] }, by);
    await failJobs(store(), clock, [late.jobId, broken.jobId, reel.jobId]);
    await attachVideo(app!.t.runtime, other, twoSeconds, 2000);
    const uncut = await operator.request('POST', `/admin/api/reels/${broken.id}/retry`);
    expect(uncut.status).toBe(400);
    expect(((await uncut.json()) as { detail: string }).detail).toBe(
      `clipIds[1]: clip ${late.id} cannot be cut from its session's video: the clip must end within the video: --end-ms 3500 is past its end at 2000 ms`,
    );
  });

  describe('the CLI', () => {
    const env = () => ({ PATH: process.env.PATH ?? '', HOME: dir, LOG_LEVEL: 'silent', DATABASE_URL: app!.t.databaseUrl });
    const cli = (args: string[], extra: Record<string, string> = {}) => runCli(args, { ...env(), ...extra }, dir);

    it('clips retry starts a failed clip over, audited as the operating-system user; refuses one not failed, exit 1', async () => {
      const clip = await failedClip();
      const retried = await cli(['clips', 'retry', '--clip', clip.id]);
      expect(retried).toMatchObject({ code: 0, stderr: '' });
      expect(retried.stdout).toBe(`retrying clip ${clip.id} of session ${sessionId} (1000-3000 ms); a running server cuts it\n`);
      expect((await store().audit.list({ action: 'clip.retry', subject: clip.id }))[0]?.actor).toMatch(/^cli:/);
      expect(await cli(['clips', 'retry', '--clip', clip.id])).toMatchObject({
        code: 1,
        stderr: `error: clip ${clip.id} is GENERATING, not ERROR: only a failed clip can be retried\n`,
      });
      expect(await cli(['clips', 'retry', '--clip', 'nope'])).toMatchObject({ code: 2, stderr: expect.stringContaining('--clip must be a UUID') as string });
    });

    it('reels retry starts a failed reel over, locally and through --endpoint, printing the reel with --json', async () => {
      const clip = await store().clips.createClip({ sessionId, startMs: 0, endMs: 1000, name: 'Part' }, by);
      const reel = await store().reels.createReel({ testId: s.testId, name: 'CLI reel', clipIds: [clip.id] }, by);
      await failJobs(store(), clock, [clip.jobId, reel.jobId]);
      const local = await cli(['reels', 'retry', '--reel', reel.id, '--json']);
      expect(local.code).toBe(0);
      expect(JSON.parse(local.stdout)).toMatchObject({ reelId: reel.id, status: 'GENERATING', clipIds: [clip.id] });

      await failJobs(store(), clock, [clip.jobId, reel.jobId]);
      const operator = await signedInAdmin(app!, 'operator');
      const clientSecret = generateClientSecret();
      const client = await store().admins.createClient({ clientId: generateAdminClientId(), adminId: operator.id, secretHash: app!.t.runtime.hasher.hash(clientSecret) }, by);
      const elsewhere = join(dir, 'elsewhere');
      mkdirSync(elsewhere, { recursive: true });
      const remoteEnv = { PATH: process.env.PATH ?? '', HOME: elsewhere, RESULTS_API_ENDPOINT: app!.adminUrl, RESULTS_API_ADMIN_CLIENT_ID: client.clientId, RESULTS_API_ADMIN_CLIENT_SECRET: clientSecret };
      const remote = await runCli(['reels', 'retry', '--reel', reel.id], remoteEnv, elsewhere);
      expect(remote).toMatchObject({ code: 0, stdout: `retrying highlight reel ${reel.id} of 1 clips; a running server makes it\n` });
      expect((await store().audit.list({ action: 'reel.retry', subject: reel.id })).map((e) => e.actor)).toEqual([expect.stringMatching(/^cli:/), `admin:${operator.email}`]);
    });
  });
});
