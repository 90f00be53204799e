/**
 * The details-fetch scenario (issue 14): one test of N detailed sessions (10,000 in the full
 * run; a plan with a QX task group and a task of every type, every session answering each)
 * served by the build (`results-api serve`, SQLite), driven by autocannon:
 *
 * - details.cached: GET /api/v3/sessionResults/{id} over a hot set of 25 sessions (a
 *   dashboard): the serialized bodies come from the cache;
 * - details.cold: every request a different session of the N, in turn (a pipeline reading each
 *   once): every body is rendered (one indexed read of the session and of its details);
 * - details.invalidated: the hot set while another process re-imports a session every 100 ms
 *   (each import drops every cached body);
 * - details.cold.grown: details.cold again after the database grew tenfold with detailed
 *   sessions of other tests (the cost must stay flat);
 * - qxScores.cached / qxScores.cold: the test's QXscores, from the cache, and recomputed from
 *   the N sessions' answers after every import (one request at a time);
 * - list.offset0 (the plain alternative on the same server): a list page of 25 sessions;
 * - legacy.completed.answers: the Legacy v1 completed-sessions page (50 sessions with their
 *   answers), beside legacy.completed.plain, the same page of a test without details (the
 *   plain alternative: what the page cost before answers), and legacy.completed.transcripts,
 *   the page once its sessions have transcripts (each answer's transcript cut from them);
 * - legacy.study.nps.cached / .cold: the Legacy v1 study with its NPS, from the cache and
 *   recomputed after every import.
 *
 * Bodies are checked before measuring: a fast wrong answer cannot pass.
 */
import { Buffer } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { uuid } from './data.mjs';
import { cpuSeconds, cpuSecondsBetween, memoryMb, stop } from './processes.mjs';
import { BENCH_EMAIL } from './seed.mjs';
import { listPath, ourTokenPath, precheckToken, rawRequest, startServer } from './servers.mjs';

const by = { actor: 'bench' };
const clock = { now: () => Date.now() };
const HOT_SET = 25;

/** Task groups by UUID, as plans hold them since issue 31 (a readable id would be mapped to one, which the details would then have to name). */
const GROUP = { qx: randomUUID(), compare: randomUUID(), main: randomUUID() };
const rating = (text, qxMeasure) => ({ text, taskType: 'rating_scale', taskGroupId: GROUP.qx, qxMeasure, scaleMinimum: 1, scaleMaximum: 5 });

/** A plan like an interaction test's: a QX task group and a task of every other type. */
const PLAN = {
  id: randomUUID(),
  shortTest: false,
  taskGroups: [
    { id: GROUP.qx, type: 'QX_SCORE' },
    { id: GROUP.compare, type: 'BALANCED_COMPARISON' },
    { id: GROUP.main, type: 'MAIN' },
  ],
  tasks: [
    { text: 'Find the returns policy.', taskType: 'launch_url', taskGroupId: GROUP.qx, qxMeasure: 'task_success', launchUrl: 'https://shop.example.com' },
    { text: 'Change the delivery address in the prototype.', taskType: 'figma', taskGroupId: GROUP.qx, qxMeasure: 'task_success' },
    rating('The website is easy to use.', 'usability'),
    rating('It is easy to navigate within the website.', 'usability'),
    rating('The information is credible.', 'trust'),
    rating('The information is trustworthy.', 'trust'),
    rating('The website is attractive.', 'appearance'),
    rating('The presentation is clean and simple.', 'appearance'),
    { text: 'How likely are you to recommend it?', taskType: 'nps', taskGroupId: GROUP.qx, qxMeasure: 'loyalty' },
    rating('I will likely return.', 'loyalty'),
    { text: 'Look around.', taskType: 'blank', taskGroupId: GROUP.main },
    { text: 'Which did you use?', taskType: 'multiple_choice', taskGroupId: GROUP.main, choices: ['Search', 'Menu', 'Links'], multipleAnswers: true },
    { text: 'Look at this page.', taskType: 'image', taskGroupId: GROUP.compare },
    { text: 'Rank the options.', taskType: 'rank_order', taskGroupId: GROUP.main, choices: ['Next day', 'Standard', 'Pick-up'] },
    { text: 'What would you change?', taskType: 'written_response', taskGroupId: GROUP.main },
    { text: 'Rate each step.', taskType: 'matrix', taskGroupId: GROUP.main, rows: ['Cart', 'Payment'], choices: ['Hard', 'OK', 'Easy'] },
  ],
};

function answerOf(task, i) {
  switch (task.taskType) {
    case 'launch_url':
    case 'figma':
      return { success: i % 3 !== 0 };
    case 'rating_scale':
      return { value: 1 + (i % 5) };
    case 'nps':
      return { value: i % 11 };
    case 'multiple_choice':
      return { selected: [task.choices[i % 3]] };
    case 'rank_order':
      return { ranking: i % 2 ? [...task.choices] : [...task.choices].reverse() };
    case 'written_response':
      return { text: `Participant ${i} would make the delivery date clearer.` };
    case 'matrix':
      return { rows: { Cart: task.choices[i % 3], Payment: task.choices[(i + 1) % 3] } };
    default:
      return {};
  }
}

/** `count` COMPLETE sessions with details, checked against the plan as the import checks them. */
function detailedSessions(checkSessionDetails, count, first) {
  return Array.from({ length: count }, (_, k) => {
    const i = first + k;
    const raw = {
      participant: { participantId: uuid(), demographics: [{ id: 'q1', code: 'GENDER', label: 'What is your gender?', value: i % 2 ? 'Female' : 'Male', type: 'DEMOGRAPHIC_QUESTION_TYPE_SINGLE' }] },
      taskGroups: [{ taskGroupId: GROUP.compare, sequence: i % 2 ? 'AB' : 'BA' }],
      tasks: PLAN.tasks.map((task, p) => ({ position: p + 1, startTimeMs: p * 30_000, endTimeMs: p * 30_000 + 20_000, skipped: i % 17 === p, answer: i % 17 === p ? null : answerOf(task, i) })),
    };
    const checked = checkSessionDetails(raw, PLAN);
    if (!checked.details) throw new Error(`bench details: ${checked.problems.join('; ')}`);
    const startTime = Date.UTC(2024, 10, 1) + i * 1000;
    return { sessionId: uuid(), audienceId: null, status: 'COMPLETE', startTime, finishTime: startTime + 600_000, details: checked.details };
  });
}

/** Creates the user, credential, workspace and `tests` tests with the plan; imports `perTest` detailed sessions into each. */
async function seed(path, dist, { credential, tests, perTest, log }) {
  const { checkSessionDetails, storedDetails } = await import('../../dist/details/session-details.js');
  const store = await dist.openStore(`sqlite:${path}`, clock);
  try {
    await store.database.migrate();
    const hasher = await dist.SecretHasher.load(store.settings);
    await store.credentials.createUser(BENCH_EMAIL, by);
    await store.credentials.createCredential({ clientId: credential.clientId, email: BENCH_EMAIL, secretHash: hasher.hash(credential.clientSecret) }, by);
    const workspace = await store.directory.createWorkspace({ id: randomUUID(), name: 'Details bench' }, by);
    await store.directory.addMember(workspace.id, BENCH_EMAIL, by);
    const check = (raw, plan) => {
      const checked = checkSessionDetails(raw, plan);
      return checked.details ? { details: storedDetails(checked.details) } : checked;
    };
    const testIds = [];
    const sessionIds = [];
    const started = performance.now();
    for (let t = 0; t < tests; t++) {
      const id = randomUUID();
      await store.directory.createTest({ id, workspaceId: workspace.id, title: `Details ${t}`, productType: 'NON_THINK_OUT_LOUD', plan: PLAN }, by);
      testIds.push(id);
      const sessions = detailedSessions(check, perTest, t * perTest);
      await store.sessions.importSessions(id, sessions, by);
      if (t === 0) sessionIds.push(...sessions.map((s) => s.sessionId));
    }
    log(`details: seeded ${tests} × ${perTest.toLocaleString('en-US')} detailed sessions in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return { workspaceId: workspace.id, testIds, sessionIds, checkSessionDetails: check };
  } finally {
    await store.database.close();
  }
}

/** Adds `tests` more tests of `perTest` detailed sessions to the database (the "grown" database). */
async function grow(path, dist, { workspaceId, tests, perTest, checkSessionDetails }) {
  const store = await dist.openStore(`sqlite:${path}`, clock);
  try {
    for (let t = 0; t < tests; t++) {
      const id = randomUUID();
      await store.directory.createTest({ id, workspaceId, title: `Grown ${t}`, productType: 'NON_THINK_OUT_LOUD', plan: PLAN }, by);
      await store.sessions.importSessions(id, detailedSessions(checkSessionDetails, perTest, 1_000_000 + t * perTest), by);
    }
  } finally {
    await store.database.close();
  }
}

/** A test of `count` COMPLETE sessions without details, beside the detailed one: what a legacy page cost before answers. */
async function plainTest(path, dist, workspaceId, count) {
  const store = await dist.openStore(`sqlite:${path}`, clock);
  try {
    const id = randomUUID();
    await store.directory.createTest({ id, workspaceId, title: 'No details', productType: 'NON_THINK_OUT_LOUD', plan: PLAN }, by);
    const sessions = Array.from({ length: count }, (_, i) => {
      const startTime = Date.UTC(2024, 10, 1) + i * 1000;
      return { sessionId: uuid(), audienceId: null, status: 'COMPLETE', startTime, finishTime: startTime + 600_000 };
    });
    await store.sessions.importSessions(id, sessions, by);
    return id;
  } finally {
    await store.database.close();
  }
}

const CUES_PER_TRANSCRIPT = 600;
const vttTime = (ms) => new Date(ms).toISOString().slice(11, 23);

/** Transcripts of the given sessions (imported as `transcripts import` does, cues stored at import). */
async function transcribe(path, dist, testId, sessionIds) {
  const store = await dist.openStore(`sqlite:${path}`, clock);
  try {
    const vtt = (n) =>
      `WEBVTT\n\n${Array.from({ length: CUES_PER_TRANSCRIPT }, (_, k) => `${vttTime(k * 1000)} --> ${vttTime(k * 1000 + 900)}\n<v Participant>Words of second ${k}, session ${n}.</v>\n`).join('\n')}`;
    await store.transcripts.importTranscripts(testId, sessionIds.map((sessionId, n) => ({ sessionId, vtt: vtt(n) })), by);
  } finally {
    await store.database.close();
  }
}

/** The NPS the seed's answers give (task 9; session i answers i % 11, skips it when i % 17 === 8), worked out independently of the server. */
function expectedNps(sessions) {
  const count = { promoters: 0, passives: 0, detractors: 0 };
  for (let i = 0; i < sessions; i++) {
    if (i % 17 === 8) continue;
    const v = i % 11;
    count[v >= 9 ? 'promoters' : v >= 7 ? 'passives' : 'detractors']++;
  }
  const n = count.promoters + count.passives + count.detractors;
  const pct = (k) => Math.round((100 * k) / n);
  return { score: pct(count.promoters) - pct(count.detractors), promoterPercentage: pct(count.promoters), passivePercentage: pct(count.passives), detractorPercentage: pct(count.detractors), position: 9, respondents: n };
}

const round = (value, digits = 0) => (Number.isFinite(value) ? Number(value.toFixed(digits)) : null);

/** One autocannon run; `nextPath` gives each request's path. */
async function load(server, nextPath, { connections, seconds }) {
  const cpuBefore = cpuSeconds(server.pid);
  const result = await autocannon({
    url: server.url,
    connections,
    duration: seconds,
    timeout: 10,
    requests: [{ method: 'GET', headers: { authorization: `Bearer ${server.token}` }, setupRequest: (req) => ({ ...req, path: nextPath() }) }],
  });
  const cpu = cpuSecondsBetween(cpuBefore, cpuSeconds(server.pid));
  const requests = result.requests.total;
  return {
    requests,
    non2xx: requests - result['2xx'],
    reqPerSec: round(requests / result.duration),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    serverCpuUsPerReq: requests > 0 ? round((cpu * 1e6) / requests, 1) : null,
    serverRssMb: round(memoryMb(server.pid).rss, 1),
  };
}

/** Re-imports one session every `everyMs` from this process (another connection: the server hears it by data_version). */
function keepImporting(path, dist, testId, session, everyMs) {
  let running = true;
  let imports = 0;
  const done = (async () => {
    const store = await dist.openStore(`sqlite:${path}`, clock);
    try {
      while (running) {
        await store.sessions.importSessions(testId, [{ ...session, finishTime: session.finishTime + (imports++ % 2) }], by);
        await sleep(everyMs);
      }
    } finally {
      await store.database.close();
    }
    return imports;
  })();
  return { stop: async () => ((running = false), done) };
}

async function getJson(server, path) {
  const res = await rawRequest(server.url + path, { headers: { authorization: `Bearer ${server.token}` } });
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.body.toString('utf8').slice(0, 200)}`);
  return JSON.parse(res.body.toString('utf8'));
}

/** Seeds, serves and measures; returns { data, scenarios } for the report. */
export async function runDetails({ dist, cli, cwd, work, sessions, growFactor, connections, seconds, logLevel, log, credential }) {
  const path = join(work, 'details.db');
  const seeded = await seed(path, dist, { credential, tests: 1, perTest: sessions, log });
  const testId = seeded.testIds[0];
  const server = await startServer('server-details', `sqlite:${path}`, { logDir: work, logLevel, cwd, cli, workers: 1 });
  const scenarios = {};
  try {
    server.token = await precheckToken(server, ourTokenPath, credential);
    // Correctness first: a session's details are its plan's tasks, each answered as seeded.
    const probe = await getJson(server, `/api/v3/sessionResults/${seeded.sessionIds[3]}`);
    if (probe.tasks.length !== PLAN.tasks.length || probe.tasks[2].response.answer.ratingScale.value !== 1 + (3 % 5)) {
      throw new Error(`details precheck: unexpected body ${JSON.stringify(probe).slice(0, 300)}`);
    }
    const qx = await getJson(server, `/api/v2/testResults/${testId}/qxScores`);
    if (qx.meta.completes !== sessions || qx.qxScores.length !== 1) throw new Error(`qxScores precheck: ${JSON.stringify(qx.meta)}`);
    const bodyBytes = Buffer.byteLength(JSON.stringify(probe));

    const ids = seeded.sessionIds;
    let next = 0;
    const hot = () => `/api/v3/sessionResults/${ids[next++ % HOT_SET]}`;
    const cold = () => `/api/v3/sessionResults/${ids[next++ % ids.length]}`;
    const opts = { connections, seconds };
    const run = async (id, title, fn) => {
      await fn(); // warm-up (JIT, page cache), not reported
      const result = await fn();
      scenarios[id] = { title, ...result };
      log(`${id}: ${result.reqPerSec} req/s, p99 ${result.p99Ms} ms, ${result.serverCpuUsPerReq} µs CPU/req${result.non2xx ? `, ${result.non2xx} non-2xx` : ''}`);
    };
    await run('details.list.offset0', 'plain alternative: a list page of 25 sessions of the same test', () => load(server, () => listPath(testId, 'limit=25&offset=0'), opts));
    await run('details.cached', `v3 details, a hot set of ${HOT_SET} sessions (served from the cache)`, () => load(server, hot, opts));
    await run('details.cold', `v3 details, each request the next of ${sessions.toLocaleString('en-US')} sessions (rendered every time)`, () => load(server, cold, opts));
    await run('details.invalidated', `v3 details, the hot set while another process re-imports a session every 100 ms`, async () => {
      const importer = keepImporting(path, dist, testId, { sessionId: ids[0], audienceId: null, status: 'COMPLETE', startTime: Date.UTC(2024, 10, 1), finishTime: Date.UTC(2024, 10, 1) + 600_000 }, 100);
      try {
        return await load(server, hot, opts);
      } finally {
        const imports = await importer.stop();
        log(`details.invalidated: ${imports} imports during the runs`);
      }
    });
    await run('qxScores.cached', `QXscores of the ${sessions.toLocaleString('en-US')}-session test, from the cache`, () => load(server, () => `/api/v2/testResults/${testId}/qxScores`, opts));
    // Cold: each request follows an import, so it recomputes from every session's answers.
    const coldAfterImport = (requestPath) => async () => {
      const store = await dist.openStore(`sqlite:${path}`, clock);
      const times = [];
      try {
        const deadline = performance.now() + seconds * 1000;
        for (let k = 0; performance.now() < deadline; k++) {
          await store.sessions.importSessions(testId, [{ sessionId: ids[1], audienceId: null, status: 'COMPLETE', startTime: Date.UTC(2024, 10, 1) + 1000, finishTime: Date.UTC(2024, 10, 1) + 601_000 + (k % 2) }], by);
          await sleep(5); // past the server's once-per-turn change check
          const t0 = performance.now();
          await getJson(server, requestPath);
          times.push(performance.now() - t0);
        }
      } finally {
        await store.database.close();
      }
      times.sort((a, b) => a - b);
      return { requests: times.length, non2xx: 0, reqPerSec: round(1000 / (times.reduce((a, b) => a + b, 0) / times.length)), p50Ms: round(times[Math.floor(times.length / 2)], 1), p99Ms: round(times[Math.floor(times.length * 0.99)], 1), serverCpuUsPerReq: null, serverRssMb: round(memoryMb(server.pid).rss, 1) };
    };
    await run('qxScores.cold', `QXscores recomputed from ${sessions.toLocaleString('en-US')} sessions' answers after each import (one request at a time; req/s = 1 / mean latency)`, coldAfterImport(`/api/v2/testResults/${testId}/qxScores`));

    // Legacy v1 with answers: a completed-sessions page renders its 50 sessions' answers (one
    // details query a page, nothing cached); the study's NPS is cached and recomputed on import.
    const legacyPage = `/usertesting/api/v1/studies/${testId}/completed-sessions`;
    const legacyStudy = `/usertesting/api/v1/studies/${testId}`;
    const page = await getJson(server, legacyPage);
    if (page.sessions.length !== 50 || page.sessions[0].answers.length !== PLAN.tasks.length) throw new Error(`legacy answers precheck: ${JSON.stringify(page.sessions[0]).slice(0, 300)}`);
    const nps = (await getJson(server, legacyStudy)).netPromoterScores;
    if (JSON.stringify(nps) !== JSON.stringify([expectedNps(sessions)])) throw new Error(`legacy NPS precheck: ${JSON.stringify(nps)} is not ${JSON.stringify(expectedNps(sessions))}`);
    const plainTestId = await plainTest(path, dist, seeded.workspaceId, sessions);
    await run('legacy.completed.plain', 'plain alternative: the same page of a test of as many sessions imported without details', () => load(server, () => `/usertesting/api/v1/studies/${plainTestId}/completed-sessions`, opts));
    await run('legacy.completed.answers', 'Legacy v1 completed-sessions page: 50 sessions with their answers (rendered every time)', () => load(server, () => legacyPage, opts));
    // The same page once its sessions have transcripts: each answer's transcript is cut from
    // the stored cues of its session (600 cues each, a ten-minute session), read every time.
    await transcribe(path, dist, testId, page.sessions.map((s) => s.sessionUuid));
    const spoken = await getJson(server, legacyPage);
    if (typeof spoken.sessions[0].answers[0].transcript !== 'string') throw new Error(`legacy transcripts precheck: ${JSON.stringify(spoken.sessions[0].answers[0]).slice(0, 300)}`);
    await run('legacy.completed.transcripts', 'Legacy v1 completed-sessions page: 50 sessions with their answers, each with what was said in its window (600-cue transcripts)', () => load(server, () => legacyPage, opts));
    await run('legacy.study.nps.cached', `Legacy v1 study with the NPS of ${sessions.toLocaleString('en-US')} sessions, from the cache`, () => load(server, () => legacyStudy, opts));
    await run('legacy.study.nps.cold', `Legacy v1 study, NPS recomputed from ${sessions.toLocaleString('en-US')} sessions after each import (one request at a time; req/s = 1 / mean latency)`, coldAfterImport(legacyStudy));

    log(`details: growing the database ${growFactor}× with detailed sessions of other tests`);
    await grow(path, dist, { workspaceId: seeded.workspaceId, tests: growFactor - 1, perTest: sessions, checkSessionDetails: seeded.checkSessionDetails });
    await run('details.cold.grown', `details.cold on a database of ${(sessions * growFactor).toLocaleString('en-US')} detailed sessions`, () => load(server, cold, opts));
    return { data: { sessions, tasksPerSession: PLAN.tasks.length, detailsBodyBytes: bodyBytes, grownTo: sessions * growFactor }, scenarios };
  } finally {
    await stop(server.handle);
  }
}
