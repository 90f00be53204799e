/**
 * Issue 30 items 4 and 8 in a real browser: the console shows what it reads as a person reads
 * it (transcripts by speaker, answers on their scales, NPS bands, choices as lists, audit
 * details wrapped, the media each session has), the rotate-secret panel carries the issue
 * panel's copy fields, and a failed clip or reel has a Retry button. Every page is checked with
 * axe-core and for CSP violations, as in console.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildAdminApp } from '../../src/admin/app.js';
import { registerAdminConsole } from '../../src/admin/console-route.js';
import { createAdminWithLink } from '../../src/admin/setup-links.js';
import { ManualClock } from '../../src/clock.js';
import { parseSessionFile } from '../../src/imports/parse-session-file.js';
import { importVideo } from '../../src/media/import-video.js';
import { generateTestVideo } from '../../src/media/ffmpeg/test-video.js';
import { issueCredential } from '../../src/operations/credentials.js';
import type { Clip } from '../../src/store/clips.js';
import type { HighlightReel } from '../../src/store/reels.js';
import type { TestPlan } from '../../src/store/store.js';
import { DETAILS_PLAN, detailsInput, OTHER_ANSWERS, PARTICIPANT_A } from '../helpers/details.js';
import { failJobs } from '../helpers/failed-jobs.js';
import { freePort, within } from '../helpers/net.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { hasFfmpeg } from '../helpers/videos.js';
import { skipWithoutChromium, warnIfSkippedWithoutChromium } from '../helpers/chromium.js';
import { openConsoleBrowser, type ConsoleBrowser } from './console-browser.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PASSWORD = 'a long enough console password';
const by = { actor: 'cli:test' };

/** DETAILS_PLAN, its first usability question with the labels of its scale's ends. */
const PLAN: TestPlan = { ...DETAILS_PLAN, tasks: DETAILS_PLAN.tasks.map((t, i) => (i === 2 ? { ...t, lowerEndpoint: 'Strongly disagree', upperEndpoint: 'Strongly agree' } : t)) };
const TRANSCRIPT = [
  'WEBVTT',
  '',
  '00:00:00.500 --> 00:00:02.000',
  '<v Participant>Where is the basket?</v>',
  '',
  '00:00:02.000 --> 00:00:03.000',
  '<v.loud Moderator Jane>Take your time &amp; <i>look</i> around</v>',
  '',
].join('\n');
/** What ffmpeg says when a signed link it reads is refused: a 700-character signature no line can break. */
const LONG_REASON = `ffmpeg failed: https://media.example.com/videos/session.mp4?signature=${'9f3a'.repeat(175)}: Server returned 403 Forbidden`;

/** Real ffmpeg makes the session's video: without it, or Chromium, these tests skip with a warning (and fail in CI). */
const haveFfmpeg = hasFfmpeg();
warnIfSkippedWithoutChromium('test/admin/console-readable.test.ts');

describe.skipIf(skipWithoutChromium || !haveFfmpeg)('the console reads as a person reads', { timeout: 120_000 }, () => {
  const clock = new ManualClock(Date.now());
  let t: TestApp;
  let admin: FastifyInstance;
  let adminUrl: string;
  let browser: ConsoleBrowser;
  let buildDir: string | undefined;
  let testId: string;
  let clip: Clip;
  let reel: HighlightReel;
  const email = `readable-${Date.now()}@example.com`;
  const sessions = { all: '00000000-0000-4000-8000-0000000000a1', transcriptOnly: '00000000-0000-4000-8000-0000000000a2', bare: '00000000-0000-4000-8000-0000000000a3' };

  beforeAll(async () => {
    buildDir = mkdtempSync(join(tmpdir(), 'results-api-console-build-'));
    execFileSync(process.execPath, ['scripts/build-console.mjs', buildDir], { cwd: ROOT, stdio: 'pipe' });
    const port = await freePort();
    adminUrl = `http://127.0.0.1:${port}`;
    const publicPort = await freePort();
    t = await startTestApp({ clock, port: publicPort, env: { PUBLIC_URL: `http://127.0.0.1:${publicPort}`, ADMIN_PORT: '0', ADMIN_URL: adminUrl } });
    admin = await buildAdminApp({ ...t.runtime, logger: undefined }, [(app) => registerAdminConsole(app, { buildDir })]);
    await admin.listen({ host: '127.0.0.1', port });
    await seedSessions();
    browser = await openConsoleBrowser(adminUrl);
    const { setupLink } = await createAdminWithLink(t.runtime, { email, role: 'operator' }, by);
    await browser.page.goto(setupLink);
    await browser.page.getByLabel('New password').fill(PASSWORD);
    await browser.page.getByLabel('Repeat the password').fill(PASSWORD);
    await browser.page.getByRole('button', { name: 'Set password and sign in' }).click();
    await heading('Workspaces').waitFor();
  }, 120_000);

  /** A test with the details plan; a session with everything, one with a transcript only, one with neither; a failed clip and reel. */
  async function seedSessions(): Promise<void> {
    const store = t.runtime.store;
    const workspace = await store.directory.createWorkspace({ id: crypto.randomUUID(), name: 'Readable' }, by);
    testId = crypto.randomUUID();
    await store.directory.createTest({ id: testId, workspaceId: workspace.id, title: 'Checkout', productType: 'THINK_OUT_LOUD', plan: PLAN }, by);
    const records = Object.values(sessions).map((sessionId, i) =>
      JSON.stringify({ sessionId, status: 'COMPLETE', startTime: `2026-11-02T1${i}:00:00Z`, finishTime: `2026-11-02T1${i}:20:00Z`, ...(i === 0 ? { details: detailsInput({ ...PARTICIPANT_A, ...OTHER_ANSWERS }) } : {}) }),
    );
    const parsed = parseSessionFile(records.join('\n'), 'ndjson', PLAN);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    await store.sessions.importSessions(testId, parsed.sessions, by);
    await store.transcripts.importTranscripts(testId, [sessions.all, sessions.transcriptOnly].map((sessionId) => ({ sessionId, vtt: TRANSCRIPT })), by);
    const dir = mkdtempSync(join(tmpdir(), 'results-api-readable-video-'));
    try {
      await generateTestVideo(join(dir, 'session.mp4'), { seconds: 4 });
      await importVideo({ sessions: store.sessions, videos: store.videos, storage: t.runtime.media.storage }, { sessionId: sessions.all, file: join(dir, 'session.mp4') }, by);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    clip = await store.clips.createClip({ sessionId: sessions.all, startMs: 500, endMs: 2500, name: 'Basket' }, by);
    reel = await store.reels.createReel({ testId, name: 'Basket moments', clipIds: [clip.id] }, by);
    await failJobs(store, clock, [clip.jobId, reel.jobId], LONG_REASON);
  }

  afterEach(async ({ task }) => {
    if (task.result?.state === 'fail') {
      await browser?.screenshot(`readable-failure-${task.name.replace(/\W+/g, '-').slice(0, 60)}`).catch(() => undefined);
      console.error(`console problems: ${JSON.stringify(browser?.problems)}`);
    }
  });

  afterAll(async () => {
    await browser?.close();
    admin?.server.closeAllConnections();
    await admin?.close();
    await t?.close();
    if (buildDir) rmSync(buildDir, { recursive: true, force: true });
  });

  const heading = (name: string | RegExp) => browser.page.getByRole('heading', { level: 1, name });

  async function checkPage(name: string): Promise<void> {
    await browser.screenshot(name);
    expect(await browser.accessibilityViolations()).toEqual([]);
    expect(browser.problems).toEqual([]);
  }

  it('marks in the sessions table which sessions have a video or a transcript', async () => {
    const { page } = browser;
    await page.goto(`${adminUrl}/#/tests/${testId}`);
    await heading('Test Checkout').waitFor();
    const media = (sessionId: string) => page.getByRole('row', { name: new RegExp(sessionId) }).getByRole('cell').last().innerText();
    await page.getByRole('row', { name: new RegExp(sessions.bare) }).waitFor();
    await expect(page.getByRole('table', { name: 'Sessions' }).getByRole('columnheader').last().innerText()).resolves.toBe('Media');
    expect((await media(sessions.all)).split(/\s+/)).toEqual(['video', 'transcript']);
    await expect(media(sessions.transcriptOnly)).resolves.toBe('transcript');
    await expect(media(sessions.bare)).resolves.toBe('—');
    await checkPage('readable-session-media');
  });

  it('shows the transcript by speaker, and each answer as a person reads it', async () => {
    const { page } = browser;
    await page.goto(`${adminUrl}/#/tests/${testId}/sessions/${sessions.all}`);
    await heading('Session').waitFor();
    const cues = page.getByRole('list', { name: 'Transcript' }).getByRole('listitem');
    await expect(cues.nth(0).innerText()).resolves.toMatch(/^Play from\s+0:00\.5\s+–\s+0:02\.0\s+Participant:\s+Where is the basket\?$/);
    await expect(cues.nth(1).innerText()).resolves.toMatch(/Moderator Jane: Take your time & look around$/);
    await expect(page.getByRole('list', { name: 'Transcript' }).innerText()).resolves.not.toContain('<');

    const tasks = page.getByRole('table', { name: 'Tasks' });
    const answer = (text: string) => tasks.getByRole('row').filter({ hasText: text }).getByRole('cell').nth(3);
    // The scale's labels come from the plan, loaded beside the session.
    await within(10_000, async () => expect(await answer('The website is easy to use.').innerText()).toBe('5 on a scale of 1 (Strongly disagree) to 5 (Strongly agree)'));
    await expect(answer('It is easy to navigate').innerText()).resolves.toBe('4 on a scale of 1 to 5');
    await expect(answer('How likely are you to recommend').innerText()).resolves.toBe('9 promoter (NPS 0–10; promoters answer 9–10)');
    await expect(answer('Which did you use?').getByRole('listitem').allInnerTexts()).resolves.toEqual(['Search', 'Links']);
    await expect(answer('Rank the flavours.').locator('ol > li').allInnerTexts()).resolves.toEqual(['Mint', 'Chocolate', 'Vanilla']);
    await expect(answer('What did you think?').innerText()).resolves.toBe('Clear enough.');
    await expect(answer('Say what you expected.').innerText()).resolves.toBe('I expected a cart icon.');
    await expect(answer('Rate each page.').innerText()).resolves.toMatch(/^Home\s*:?\s*Good\s+Cart\s*:?\s*Fine$/);
    await expect(answer('Find a pair of running shoes.').innerText()).resolves.toBe('Completed');
    await expect(answer('Take a look around.').innerText()).resolves.toBe('Done');
    await expect(tasks.innerText()).resolves.not.toMatch(/[{}"]/);
    await checkPage('readable-session');
  });

  it('retries the failed clip from its Retry button, audited with the admin', async () => {
    const { page } = browser;
    const row = page.getByRole('table', { name: 'Clips' }).getByRole('row', { name: /Basket/ });
    await expect(row.innerText()).resolves.toContain('ERROR');
    await row.getByRole('button', { name: 'Retry clip Basket' }).click();
    await page.getByRole('status').filter({ hasText: 'Clip “Basket” is being cut again.' }).waitFor();
    await within(10_000, async () => expect(await row.innerText()).toContain('GENERATING'));
    await expect(row.getByRole('button', { name: /Retry/ }).count()).resolves.toBe(0);
    expect((await t.runtime.store.clips.findClip(clip.id))?.status).toBe('GENERATING');
    expect((await t.runtime.store.audit.list({ action: 'clip.retry', subject: clip.id })).map((e) => e.actor)).toEqual([`admin:${email}`]);
    await checkPage('readable-clip-retried');
  });

  it('retries the failed highlight reel from its Retry button', async () => {
    const { page } = browser;
    await page.goto(`${adminUrl}/#/tests/${testId}`);
    await heading('Test Checkout').waitFor();
    const row = page.getByRole('table', { name: 'Highlight reels' }).getByRole('row', { name: /Basket moments/ });
    await row.getByRole('button', { name: 'Retry reel Basket moments' }).click();
    await page.getByRole('status').filter({ hasText: 'Highlight reel “Basket moments” is being made again.' }).waitFor();
    await within(10_000, async () => expect(await row.innerText()).toContain('GENERATING'));
    expect((await t.runtime.store.reels.findReel(reel.id))?.status).toBe('GENERATING');
    expect((await t.runtime.store.audit.list({ action: 'reel.retry', subject: reel.id })).map((e) => e.actor)).toEqual([`admin:${email}`]);
  });

  it('wraps long audit details: the page never scrolls sideways', async () => {
    const { page } = browser;
    await page.goto(`${adminUrl}/#/audit?action=job.fail`);
    await heading('Audit log').waitFor();
    const reason = page.getByRole('definition').filter({ hasText: LONG_REASON }).first();
    await reason.waitFor();
    await expect(page.getByRole('term').filter({ hasText: 'reason' }).first().isVisible()).resolves.toBe(true);
    // The value wraps inside its box, and the box inside the window.
    const value = await reason.evaluate((dd) => ({ scroll: dd.scrollWidth, client: dd.clientWidth, right: dd.getBoundingClientRect().right }));
    expect(value.scroll).toBeLessThanOrEqual(value.client);
    const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, window: document.documentElement.clientWidth }));
    expect(value.right).toBeLessThanOrEqual(widths.window);
    expect(widths.page).toBeLessThanOrEqual(widths.window);
    await checkPage('readable-audit');
  });

  it('gives the rotate-secret panel the copy fields of the issue panel', async () => {
    const { page } = browser;
    const userEmail = `rotate-${Date.now()}@example.com`;
    await t.runtime.store.credentials.createUser(userEmail, by);
    const issued = await issueCredential(t.runtime, userEmail, by);
    await page.goto(`${adminUrl}/#/users/${userEmail}`);
    await heading(`API user ${userEmail}`).waitFor();
    await page.getByRole('button', { name: `Rotate secret of ${issued.clientId}` }).click();
    const panel = page.getByRole('region', { name: 'Copy the secret now: it is shown only once' });
    await panel.getByText('The previous secret keeps working until').waitFor();
    await expect(panel.getByLabel('Token URL').inputValue()).resolves.toBe(issued.tokenUrl);
    await expect(panel.getByLabel('Authorization server id').inputValue()).resolves.toBe(issued.authorizationServerId);
    await expect(panel.getByLabel('Results API base URL').inputValue()).resolves.toBe(issued.baseUrl);
    await panel.getByRole('button', { name: 'Copy Token URL' }).click();
    await panel.getByRole('status').filter({ hasText: 'Token URL copied.' }).waitFor();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(issued.tokenUrl);
    await checkPage('readable-rotated-secret');
  });
});
