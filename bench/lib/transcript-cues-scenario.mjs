/**
 * The `transcript.cues` scenario (issue 30): a transcript of N cues (1,000,000 in the full run)
 * from reading to the admin console's page of it.
 *
 * - parse: the build's WebVTT parser (dist/store/webvtt.js) on the N-cue text, median of
 *   3, beside the plain alternative on the same text, splitting it into lines (what any reader
 *   pays), and the parser on a quarter of the cues (per-cue cost flat: linear);
 * - store: TranscriptRepository.importTranscripts of the N-cue transcript into SQLite (it reads
 *   the cues and stores them in pages). The repository has no size limit; the CLI's 8 MiB one
 *   is measured next: `results-api transcripts import` of the largest file it accepts, a
 *   process from spawn to exit, with its peak RSS;
 * - the admin page: `results-api serve` on that database, the admin transcript route (1000 cues
 *   a request, the first page and one 990,000 cues in) driven by autocannon, and the public
 *   /healthz timed alone and while one admin reads the pages back to back (the admin
 *   looking at the session): no request waits on a parse.
 *   The plain alternative of the page is the parse above: what each request cost when the page
 *   parsed the stored text.
 */
import { Buffer } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { URLSearchParams } from 'node:url';
import { freePort } from './free-port.mjs';
import { runAutocannon } from './load.mjs';
import { memoryMb, startNode, stop } from './processes.mjs';
import { childEnv, rawRequest, startServer } from './servers.mjs';

const by = { actor: 'bench' };
const clock = { now: () => Date.now() };
const PAGE = 1000;
const MAX_TRANSCRIPT_BYTES = 8 * 1024 * 1024;

const pad = (n, w = 2) => String(n).padStart(w, '0');
const stamp = (ms) => `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}.${pad(ms % 1000, 3)}`;
/** Cue i: two seconds of speech every three, a short sentence by the participant (~60 bytes). */
const cueText = (i) => `${stamp(i * 3000)} --> ${stamp(i * 3000 + 2000)}\n<v Participant>Sentence ${i}.</v>`;
const transcript = (cues) => `WEBVTT\n\n${Array.from({ length: cues }, (_, i) => cueText(i)).join('\n\n')}\n`;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const round = (value, digits = 0) => (Number.isFinite(value) ? Number(value.toFixed(digits)) : null);
const timed = (fn) => {
  const started = performance.now();
  const result = fn();
  return { ms: performance.now() - started, result };
};

export async function runTranscriptCues({ dist, cli, cwd, work, cues, connections, seconds, logLevel, log }) {
  const { parseWebVtt } = await import('../../dist/store/webvtt.js');
  const text = transcript(cues);
  log(`transcript.cues: a ${cues.toLocaleString('en-US')}-cue transcript, ${(text.length / 1e6).toFixed(1)} MB`);

  // --- parse, beside the plain alternative (the quarter first: it also warms the parser up) ---
  const quarterText = transcript(Math.floor(cues / 4));
  const quarter = median([0, 1, 2].map(() => timed(() => parseWebVtt(quarterText)).ms));
  const parse = [];
  const split = [];
  for (let run = 0; run < 3; run++) {
    const parsed = timed(() => parseWebVtt(text));
    if (parsed.result.length !== cues) throw new Error(`transcript.cues: parsed ${parsed.result.length} cues, expected ${cues}`);
    parse.push(parsed.ms);
    split.push(timed(() => text.split(/\r\n|\r|\n/)).ms);
  }
  const parseMs = median(parse);
  log(`transcript.cues: parse ${round(parseMs)} ms (${round((parseMs * 1000) / cues, 2)} µs a cue), splitting into lines ${round(median(split))} ms`);

  // --- store (the repository), then the CLI's import of the largest file it accepts ---
  const path = join(work, 'transcript-cues.db');
  const seeded = await seed(path, dist);
  const store = await dist.openStore(`sqlite:${path}`, clock);
  let storeMs;
  try {
    const started = performance.now();
    await store.transcripts.importTranscripts(seeded.testId, [{ sessionId: seeded.sessionIds[0], vtt: text }], by);
    storeMs = performance.now() - started;
  } finally {
    await store.database.close();
  }
  log(`transcript.cues: stored in ${round(storeMs)} ms`);
  const largest = await cliImport({ cli, cwd, work, path, sessionId: seeded.sessionIds[1], logLevel });
  log(`transcript.cues: transcripts import of ${largest.cues.toLocaleString('en-US')} cues (${largest.fileMb} MB) in ${largest.seconds} s, peak RSS ${largest.peakRssMb} MB`);

  // --- the admin page, and /healthz beside it ---
  const adminPort = await freePort();
  const server = await startServer('server-transcript-cues', `sqlite:${path}`, { logDir: work, logLevel, cwd, cli, workers: 1, adminPort });
  try {
    const adminUrl = `http://127.0.0.1:${adminPort}`;
    const token = await adminToken(adminUrl, seeded.adminClient);
    const pagePath = (offset) => `/admin/api/tests/${seeded.testId}/sessions/${seeded.sessionIds[0]}/transcript?offset=${offset}&limit=${PAGE}`;
    const deepOffset = Math.max(0, cues - 10 * PAGE);
    for (const offset of [0, deepOffset]) await precheckPage(adminUrl, token, pagePath(offset), offset, cues);
    const admin = { url: adminUrl, pid: server.pid, headers: { authorization: `Bearer ${token}` } };
    const healthz = { url: server.url, pid: server.pid, headers: {} };
    const opts = { connections, seconds };
    await load(admin, pagePath(0), opts); // warm-up, not reported
    const first = await load(admin, pagePath(0), opts);
    const deep = await load(admin, pagePath(deepOffset), opts);
    // One admin reading page after page (as the admin looking at the session), and /healthz beside.
    const one = { connections: 1, seconds };
    const alone = await load(healthz, '/healthz', one);
    const [reader, beside] = await Promise.all([load(admin, pagePath(deepOffset), one), load(healthz, '/healthz', one)]);
    log(
      `transcript.cues: admin page ${first.reqPerSec} req/s (p99 ${first.p99Ms} ms), deep ${deep.reqPerSec} req/s; ` +
        `/healthz p99 ${alone.p99Ms} ms alone, ${beside.p99Ms} ms beside one admin reading pages (${reader.reqPerSec} pages/s)`,
    );
    return {
      cues,
      textMb: round(text.length / 1e6, 1),
      parse: { ms: round(parseMs), usPerCue: round((parseMs * 1000) / cues, 2), quarterUsPerCue: round((quarter * 1000) / Math.floor(cues / 4), 2), runs: parse.map((ms) => round(ms)) },
      plainSplitMs: round(median(split)),
      storeMs: round(storeMs),
      largestImport: largest,
      adminPage: { limit: PAGE, first, deep: { offset: deepOffset, ...deep } },
      healthz: { alone, besideOneAdmin: { ...beside, adminPagesPerSec: reader.reqPerSec } },
    };
  } catch (error) {
    return { cues, error: error instanceof Error ? error.message : String(error) };
  } finally {
    await stop(server.handle);
    for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
  }
}

/** A workspace, test and two sessions, and an operator with an admin API client (as `admins clients create` makes). */
async function seed(path, dist) {
  const { generateAdminClientId } = await import('../../dist/admin/admin-client-ids.js');
  const store = await dist.openStore(`sqlite:${path}`, clock);
  try {
    await store.database.migrate();
    const workspace = await store.directory.createWorkspace({ id: randomUUID(), name: 'Transcripts' }, by);
    const testId = randomUUID();
    await store.directory.createTest({ id: testId, workspaceId: workspace.id, title: 'Long sessions', productType: 'THINK_OUT_LOUD' }, by);
    const sessionIds = [randomUUID(), randomUUID()];
    const now = Date.now();
    await store.sessions.importSessions(testId, sessionIds.map((sessionId) => ({ sessionId, audienceId: null, status: 'COMPLETE', startTime: now, finishTime: now + 3_600_000 })), by);
    const admin = await store.admins.createAdmin({ id: randomUUID(), email: 'bench-operator@example.com', role: 'operator', setupTokenHash: randomUUID(), setupExpiresAt: 0 }, by);
    const hasher = await dist.SecretHasher.load(store.settings);
    const adminClient = { clientId: generateAdminClientId(), clientSecret: dist.generateClientSecret() };
    await store.admins.createClient({ clientId: adminClient.clientId, adminId: admin.id, secretHash: hasher.hash(adminClient.clientSecret) }, by);
    return { testId, sessionIds, adminClient };
  } finally {
    await store.database.close();
  }
}

/** `results-api transcripts import` of the largest file the CLI accepts, from spawn to exit, sampling its peak RSS. */
async function cliImport({ cli, cwd, work, path, sessionId, logLevel }) {
  let count = Math.floor(MAX_TRANSCRIPT_BYTES / (cueText(0).length + 2));
  let text = transcript(count);
  while (Buffer.byteLength(text) > MAX_TRANSCRIPT_BYTES) text = transcript((count -= 1000));
  const file = join(work, 'largest.vtt');
  writeFileSync(file, text);
  const started = performance.now();
  const handle = startNode({
    name: 'transcripts-import',
    script: cli,
    args: ['transcripts', 'import', '--session', sessionId, '--json', file],
    env: childEnv(logLevel, { DATABASE_URL: `sqlite:${path}` }),
    cwd,
    logDir: work,
  });
  let peakRssMb = 0;
  while (handle.exitCode === undefined) {
    try {
      peakRssMb = Math.max(peakRssMb, memoryMb(handle.pid).peak);
    } catch {
      // It exited between the check and the read.
    }
    await Promise.race([handle.exited, sleep(100)]);
  }
  const seconds = (performance.now() - started) / 1000;
  const fileMb = statSync(file).size / 1024 / 1024;
  rmSync(file, { force: true });
  if (handle.exitCode !== 0) throw new Error(`transcripts import exited with ${handle.exitCode}: ${handle.logTail(5)}`);
  return { cues: count, fileMb: round(fileMb, 2), seconds: round(seconds, 2), peakRssMb: round(peakRssMb, 1) };
}

async function adminToken(adminUrl, { clientId, clientSecret }) {
  const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }).toString();
  const res = await rawRequest(`${adminUrl}/admin/oauth2/v1/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
  if (res.status !== 200) throw new Error(`admin token: ${res.status} ${res.body.toString('utf8').slice(0, 200)}`);
  return JSON.parse(res.body.toString('utf8')).access_token;
}

/** The page must hold the very cues generated: a fast wrong answer cannot pass. */
async function precheckPage(adminUrl, token, path, offset, cues) {
  const res = await rawRequest(adminUrl + path, { headers: { authorization: `Bearer ${token}` } });
  const body = res.status === 200 ? JSON.parse(res.body.toString('utf8')) : null;
  const expected = Math.min(PAGE, cues - offset);
  const ok =
    body?.cueCount === cues &&
    body.cues.length === expected &&
    body.cues[0].startMs === offset * 3000 &&
    body.cues[expected - 1].text === `<v Participant>Sentence ${offset + expected - 1}.</v>`;
  if (!ok) throw new Error(`admin transcript page ${path}: ${res.status} ${res.body.toString('utf8').slice(0, 200)}`);
}

/** One autocannon run of GET `path` (load.mjs), with the server's CPU time. */
const load = (target, path, opts) => runAutocannon(target, { path, headers: target.headers }, opts);

/** The report's lines. */
export function transcriptCuesLines(t) {
  if (t.error) return [`transcript cues: failed (${t.error})`];
  const { first, deep } = t.adminPage;
  return [
    `transcript cues (a ${t.cues.toLocaleString('en-US')}-cue transcript, ${t.textMb} MB): parse ${t.parse.ms} ms (${t.parse.usPerCue} µs a cue; ` +
      `${t.parse.quarterUsPerCue} µs a cue at a quarter of the cues), splitting the text into lines alone ${t.plainSplitMs} ms; stored in ${t.storeMs} ms`,
    `transcripts import (CLI) of the largest file accepted, ${t.largestImport.cues.toLocaleString('en-US')} cues (${t.largestImport.fileMb} MiB): ` +
      `${t.largestImport.seconds} s, peak RSS ${t.largestImport.peakRssMb} MB`,
    `admin transcript page (${t.adminPage.limit} stored cues): first ${first.reqPerSec} req/s, p50 ${first.p50Ms} ms, p99 ${first.p99Ms} ms, ${first.serverCpuUsPerReq} µs CPU/req; ` +
      `${deep.offset.toLocaleString('en-US')} cues in ${deep.reqPerSec} req/s, p99 ${deep.p99Ms} ms, ${deep.serverCpuUsPerReq} µs CPU/req ` +
      `(the plain alternative, parsing the stored text per request: ${t.parse.ms} ms a request)`,
    `/healthz: p50 ${t.healthz.alone.p50Ms} ms, p99 ${t.healthz.alone.p99Ms} ms alone; p50 ${t.healthz.besideOneAdmin.p50Ms} ms, p99 ${t.healthz.besideOneAdmin.p99Ms} ms ` +
      `while one admin reads the transcript page after page (${t.healthz.besideOneAdmin.adminPagesPerSec} pages/s)`,
  ];
}
