/**
 * The search scenarios (issue 32): full-text search over N transcript cues (1,000,000 in the
 * full run, 20,000 in smoke) on SQLite (FTS5) and, with DATABASE_URL, PostgreSQL (tsvector
 * under GIN), and what the index costs the import that keeps it.
 *
 * - data: 10 tests of half-hour sessions (360 cues each, one every 5 s), each cue a sentence of
 *   6-14 words drawn from a 4,000-word vocabulary with Zipf frequencies (function words, then
 *   the words of usability tests, then a long tail), so queries range from a word in most cues
 *   to one in none. Each cue's text is a function of its number alone (`cueText`), so both
 *   engines hold the same texts and the harness knows every answer without asking the server.
 *   Seeded set-wise into the search tables (SQLite: prepared inserts in one transaction, the
 *   FTS5 index rebuilt once after them; PostgreSQL: batches of unnest() rows, the GIN
 *   index built after them); tests, sessions and the user through the build's repositories.
 * - search.sqlite / search.pg: `GET /api/v2/search` by one client (an analyst: latency is the
 *   point), cycling through QUERIES; mcp.tool.search: the same queries as MCP `tools/call
 *   search` on the SQLite server, whose CPU per request is compared with search.sqlite's.
 *   Before measuring, every query's first page is checked against the generator: each hit's
 *   cue holds every word, and the page is as full as the number of matching cues allows; the
 *   MCP tool's hits must equal REST's.
 * - import.transcripts: `TranscriptRepository.importTranscripts` of M cues (M/360 sessions, one
 *   transaction) into a database with the search index (as shipped) and into one whose search
 *   tables are a view that discards every row (the import before search, less what it still
 *   does for the index, building the entries and handing them to the view, which is timed on
 *   its own and counted as the index's), interleaved, a fresh test each round.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { URLSearchParams } from 'node:url';
import pg from 'pg';
import { median, runAutocannon } from './load.mjs';
import { callTool, mcpResource, mcpToolRequest } from './mcp.mjs';
import { stop } from './processes.mjs';
import { postgresUrlWithSchema, seedPostgres, seedSqlite } from './seed.mjs';
import { ourTokenPath, precheckToken, rawRequest, startServer } from './servers.mjs';

const Database = (await import('../../dist/store/sqlite/driver.js')).sqliteDriver();
const by = { actor: 'bench' };
const clock = { now: () => Date.now() };

const TESTS = 10;
export const CUES_PER_SESSION = 360;
const CUE_EVERY_MS = 5000;
const PAGE = 20;

// --- the texts -------------------------------------------------------------------------------

const FUNCTION_WORDS = 'the i to it and a is this that you of on so what my in for we just like can not there here be do go would if me'.split(' ');
const DOMAIN_WORDS = (
  'page button click checkout cart price search menu account shipping product option filter screen link form email password ' +
  'scroll order payment address delivery size colour review image settings profile help back next home easy hard clear slow ' +
  'expect find looking want think need try add remove select open close load error message total discount coupon banner popup ' +
  'video text font icon logo header footer tab list grid sort compare save share download upload register submit cancel confirm ' +
  'continue wait frustrating nice great confusing code label field step basket wishlist voucher invoice receipt tracking refund ' +
  'warranty subscription newsletter notification checkbox dropdown slider carousel breadcrumb tooltip'
).split(' ');
const VOCABULARY_SIZE = 4000;

/** Made-up words of three consonant-vowel syllables: no English stem, so none matches a query word by stemming. */
function vocabulary() {
  const syllables = [...'bdfgklmnprtvz'].flatMap((c) => [...'aiou'].map((v) => c + v));
  const words = new Set([...FUNCTION_WORDS, ...DOMAIN_WORDS]);
  for (let j = 0; words.size < VOCABULARY_SIZE; j++) {
    words.add(syllables[(j * 7 + 3) % 52] + syllables[Math.floor(j / 52) % 52] + syllables[Math.floor(j / 2704) % 52]);
  }
  return [...words];
}
const WORDS = vocabulary();
/** Zipf (s = 1): the word of rank r is drawn with weight 1 / (r + 1). */
const CDF = (() => {
  const cdf = new Float64Array(WORDS.length);
  let sum = 0;
  for (let r = 0; r < WORDS.length; r++) cdf[r] = sum += 1 / (r + 1);
  return cdf.map((c) => c / sum);
})();
const RARE_WORD = WORDS[3000];

function drawWord(u) {
  let lo = 0;
  let hi = CDF.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (CDF[mid] < u) lo = mid + 1;
    else hi = mid;
  }
  return WORDS[lo];
}

/** mulberry32: a small deterministic generator, seeded by the cue's number. */
function random(seed) {
  let a = seed | 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Cue number `i`: its words (lower case) and speaker. */
function cue(i) {
  const rand = random(Math.imul(i + 1, 0x9e3779b1));
  const words = Array.from({ length: 6 + Math.floor(rand() * 9) }, () => drawWord(rand()));
  return { words, speaker: rand() < 0.85 ? 'Participant' : 'Moderator' };
}
const sentence = (words) => `${words[0][0].toUpperCase()}${words.join(' ').slice(1)}.`;

/** What the analysts of the benchmark ask, from a word in most cues to one in none; `test`: within that test only. */
export const QUERIES = [
  { q: 'checkout button' },
  { q: 'confusing' },
  { q: 'page' },
  { q: 'price shipping' },
  { q: 'coupon code' },
  { q: 'tooltip' },
  { q: RARE_WORD },
  { q: 'the' },
  { q: 'i click the button' },
  { q: 'zyzzyva' },
  { q: 'page', test: 0 },
];
/** English stop words among the queries' words: the search leaves them out on both engines (src/search/stop-words.ts). */
const STOP_WORDS = new Set(['the', 'i']);
const wordsOf = (query) => query.q.split(' ').filter((w) => !STOP_WORDS.has(w));

/**
 * Calls `fn(session, cueIndex, startMs, words, speaker)` for every cue, sessions in order, and
 * returns how many cues each query matches (its words all present, in its test if it names one).
 */
function forEachCue(sessions, cues, fn) {
  const counts = QUERIES.map(() => 0);
  const queryWords = QUERIES.map(wordsOf);
  for (let i = 0; i < cues; i++) {
    const session = sessions[Math.floor(i / CUES_PER_SESSION)];
    const { words, speaker } = cue(i);
    fn(session, (i % CUES_PER_SESSION) * CUE_EVERY_MS, words, speaker);
    const present = new Set(words);
    QUERIES.forEach((query, k) => {
      const need = queryWords[k];
      if (need.length > 0 && (query.test === undefined || query.test === session.testIndex) && need.every((w) => present.has(w))) counts[k]++;
    });
  }
  // Both engines find the same: the same words, stop words left out.
  return { sqlite: counts, pg: counts };
}

function layoutFor(cues) {
  // Three in four sessions complete (forEachSession's rule), and only those get transcripts.
  const perTest = Math.ceil(Math.ceil(cues / CUES_PER_SESSION) / TESTS / 0.75) + 1;
  return { totalSessions: perTest * TESTS, counts: Array(TESTS).fill(perTest) };
}

/** The completed sessions, in the order cues are dealt to them: by test, then newest first. */
function orderSessions(rows, testIds, cues) {
  const sessions = rows
    .map((r) => ({ sessionId: r.session_id, testId: r.test_id, testIndex: testIds.indexOf(r.test_id), startTime: Number(r.start_time) }))
    .sort((a, b) => a.testIndex - b.testIndex || b.startTime - a.startTime || (a.sessionId < b.sessionId ? -1 : 1));
  const needed = Math.ceil(cues / CUES_PER_SESSION);
  if (sessions.length < needed) throw new Error(`search: ${sessions.length} completed sessions for ${needed} transcripts`);
  return sessions.slice(0, needed);
}

const COMPLETED = "SELECT session_id, test_id, start_time FROM sessions WHERE status = 'COMPLETE'";

export async function seedSqliteCues(path, dist, { cues, credential }) {
  const seeded = await seedSqlite(path, dist, { layout: layoutFor(cues), credential, transcript: false });
  const started = performance.now();
  const db = new Database(path);
  let sessions;
  let counts;
  try {
    db.pragma('journal_mode = DELETE');
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -524288');
    sessions = orderSessions(db.prepare(COMPLETED).all(), seeded.testIds, cues);
    const insert = db.prepare(
      "INSERT INTO search_entries (session_id, test_id, kind, start_ms, end_ms, speaker, text) VALUES (?, ?, 'transcript', ?, ?, ?, ?)",
    );
    // A bulk load builds the FTS5 index once after the rows (the schema's trigger, a statement per
    // row, took 64-208 s for a million); the trigger is put back as it was.
    const trigger = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'search_entries_indexed'").get().sql;
    db.transaction(() => {
      db.exec('DROP TRIGGER search_entries_indexed');
      counts = forEachCue(sessions, cues, (s, startMs, words, speaker) => insert.run(s.sessionId, s.testId, startMs, startMs + 4500, speaker, sentence(words)));
      db.exec("INSERT INTO search_index (search_index) VALUES ('rebuild')");
      db.exec(trigger);
    })();
    db.pragma('journal_mode = WAL');
  } finally {
    db.close();
  }
  return { ...seeded, sessions, counts, seedSeconds: (performance.now() - started) / 1000 };
}

/** Rows per INSERT ... SELECT FROM unnest(): about a megabyte of text a statement. */
const PG_BATCH = 20_000;

async function seedPostgresCues(pgUrl, schema, dist, { cues, credential }) {
  const seeded = await seedPostgres(pgUrl, schema, dist, { layout: layoutFor(cues), credential, transcript: false });
  const started = performance.now();
  const client = new pg.Client({ connectionString: postgresUrlWithSchema(pgUrl, schema) });
  await client.connect();
  let sessions;
  let counts;
  try {
    sessions = orderSessions((await client.query(COMPLETED)).rows, seeded.testIds, cues);
    // Generated first (a hundred-odd MB), so the inserts follow one another.
    const batches = [];
    let batch;
    counts = forEachCue(sessions, cues, (s, startMs, words, speaker) => {
      if (!batch || batch[0].length === PG_BATCH) batches.push((batch = [[], [], [], [], []]));
      [s.sessionId, s.testId, startMs, speaker, sentence(words)].forEach((value, column) => batch[column].push(value));
    });
    await client.query('BEGIN');
    // A bulk load builds its GIN index after the rows (one sort), as pg_restore does; the same definition as migration 16.
    await client.query('DROP INDEX search_entries_document');
    for (const rows of batches) {
      await client.query(
        `INSERT INTO search_entries (session_id, test_id, kind, start_ms, end_ms, speaker, text)
         SELECT s, t, 'transcript', a, a + 4500, p, x FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[]) AS u(s, t, a, p, x)`,
        rows,
      );
    }
    await client.query("SET LOCAL maintenance_work_mem = '256MB'");
    await client.query('CREATE INDEX search_entries_document ON search_entries USING GIN (document)');
    await client.query('COMMIT');
    await client.query('ANALYZE search_entries');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
  return { ...seeded, sessions, counts, seedSeconds: (performance.now() - started) / 1000 };
}

// --- the checks and the load -----------------------------------------------------------------

const searchPath = (query, testIds) =>
  `/api/v2/search?${new URLSearchParams({ q: query.q, limit: String(PAGE), ...(query.test === undefined ? {} : { testId: testIds[query.test] }) })}`;
const toolArgs = (query, testIds) => ({ query: query.q, limit: PAGE, ...(query.test === undefined ? {} : { testId: testIds[query.test] }) });

async function getJson(server, path, token) {
  const res = await rawRequest(server.url + path, { headers: { authorization: `Bearer ${token}` } });
  const text = res.body.toString('utf8');
  if (res.status !== 200) throw new Error(`${server.name}: GET ${path} answered ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/**
 * Every query's first page against the generator (each hit's cue holds every word; the page
 * is as full as the matching cues allow), and MCP's hits against REST's; then each query alone,
 * five times in a row, for its own median latency (what the mix's p99 is made of).
 */
async function precheck(server, engine, seeded, mcpToken) {
  const bySession = new Map(seeded.sessions.map((s, ordinal) => [s.sessionId, ordinal]));
  const perQueryMs = {};
  for (const [k, query] of QUERIES.entries()) {
    const path = searchPath(query, seeded.testIds);
    const body = await getJson(server, path, server.token);
    const expected = Math.min(PAGE, seeded.counts[engine][k]);
    if (body.hits.length !== expected) throw new Error(`${server.name}: "${query.q}" found ${body.hits.length} hits on its first page, expected ${expected}`);
    for (const hit of body.hits) {
      const ordinal = bySession.get(hit.sessionId);
      const index = ordinal * CUES_PER_SESSION + hit.startMs / CUE_EVERY_MS;
      const words = ordinal === undefined ? [] : cue(index).words;
      if (!wordsOf(query).every((w) => words.includes(w)) || (query.test !== undefined && hit.testId !== seeded.testIds[query.test])) {
        throw new Error(`${server.name}: "${query.q}" found session ${hit.sessionId} at ${hit.startMs} ms, whose cue does not match`);
      }
    }
    if (mcpToken) {
      const tool = await callTool(server, mcpToken, 'search', toolArgs(query, seeded.testIds));
      if (JSON.stringify(tool.hits) !== JSON.stringify(body.hits)) throw new Error(`${server.name}: the MCP tool search does not answer GET ${path}'s hits`);
    }
    const times = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      await getJson(server, path, server.token);
      times.push(performance.now() - started);
    }
    perQueryMs[query.q + (query.test === undefined ? '' : ' (one test)')] = { matches: seeded.counts[engine][k], medianMs: Number(median(times).toFixed(2)) };
  }
  return perQueryMs;
}

function restLoad(seeded) {
  return { path: searchPath(QUERIES[0], seeded.testIds), requests: QUERIES.map((q) => ({ method: 'GET', path: searchPath(q, seeded.testIds) })) };
}

function mcpLoad(seeded) {
  const requests = QUERIES.map((q) => mcpToolRequest('search', toolArgs(q, seeded.testIds)));
  return { ...requests[0], requests: requests.map(({ method, path, body }) => ({ method, path, body })) };
}

// --- the import with and without the index ---------------------------------------------------

/** A WebVTT transcript of session `ordinal` of the import: its 360 cues, as the seeded ones are made. */
export function vttOf(ordinal, cueCount) {
  const stamp = (ms) => new Date(ms).toISOString().slice(11, 23);
  const lines = ['WEBVTT', ''];
  for (let c = 0; c < cueCount; c++) {
    const { words, speaker } = cue(ordinal * CUES_PER_SESSION + c);
    const at = c * CUE_EVERY_MS;
    lines.push(`${stamp(at)} --> ${stamp(at + 4500)}`, `<v ${speaker}>${sentence(words)}</v>`, '');
  }
  return lines.join('\n');
}

/** The search tables replaced by a view that discards what is written to it: the import without the index. */
const SQLITE_WITHOUT_INDEX = [
  'DROP TRIGGER search_entries_indexed',
  'DROP TRIGGER search_entries_unindexed',
  'DROP TABLE search_index',
  'DROP TABLE search_entries',
  `CREATE VIEW search_entries (id, session_id, test_id, kind, task_id, start_ms, end_ms, speaker, text) AS
     SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL WHERE 0`,
  'CREATE TRIGGER search_entries_discarded INSTEAD OF INSERT ON search_entries BEGIN SELECT 1; END',
  'CREATE TRIGGER search_entries_none INSTEAD OF DELETE ON search_entries BEGIN SELECT 1; END',
];
const POSTGRES_WITHOUT_INDEX = [
  'DROP TABLE search_entries',
  `CREATE VIEW search_entries AS SELECT NULL::bigint AS id, NULL::text AS session_id, NULL::text AS test_id, NULL::text AS kind,
     NULL::text AS task_id, NULL::bigint AS start_ms, NULL::bigint AS end_ms, NULL::text AS speaker, NULL::text AS text WHERE false`,
  'CREATE RULE search_entries_discarded AS ON INSERT TO search_entries DO INSTEAD NOTHING',
  'CREATE RULE search_entries_none AS ON DELETE TO search_entries DO INSTEAD NOTHING',
];

/**
 * What the plain import still does for the index that the view then discards: the entries built
 * in JavaScript, sent to the database as JSON, and every row handed to the view's trigger (SQLite:
 * a trigger program per row) or rule. Timed alone after each plain import and taken off its time,
 * so that "without" is the import with no search work at all (taking off the JavaScript alone
 * left ~0.3 s of discarding in it on SQLite, as much as the rest of the import).
 */
async function discardEntries(dist, store, parsed) {
  const started = performance.now();
  await store.database.write(null, (tx) =>
    dist.writeSearchEntries(tx, randomUUID(), 'transcript', new Map(parsed.map((cues) => [randomUUID(), dist.transcriptEntries(cues)]))),
  );
  return (performance.now() - started) / 1000;
}

async function importRounds({ dist, open, withoutIndex, cues, rounds, log, label }) {
  const transcripts = Math.ceil(cues / CUES_PER_SESSION);
  const vtts = Array.from({ length: transcripts }, (_, s) => vttOf(s, Math.min(CUES_PER_SESSION, cues - s * CUES_PER_SESSION)));
  const parsed = vtts.map((vtt) => dist.parseWebVtt(vtt));
  const stores = { indexed: await open('indexed'), plain: await open('plain') };
  const seconds = { indexed: [], plain: [], discarded: [] };
  try {
    const workspaces = {};
    for (const [variant, store] of Object.entries(stores)) {
      await store.database.migrate();
      if (variant === 'plain') {
        await store.database.write(null, async (tx) => {
          for (const statement of withoutIndex) await tx.run(statement);
        });
      }
      workspaces[variant] = (await store.directory.createWorkspace({ id: randomUUID(), name: 'Import' }, by)).id;
    }
    for (let round = 0; round < rounds; round++) {
      // Alternate which goes first, so neither always follows the other's checkpoint.
      for (const variant of round % 2 ? ['plain', 'indexed'] : ['indexed', 'plain']) {
        const store = stores[variant];
        const testId = randomUUID();
        await store.directory.createTest({ id: testId, workspaceId: workspaces[variant], title: `Import ${round}`, productType: 'THINK_OUT_LOUD' }, by);
        const sessions = vtts.map((_, s) => ({ sessionId: randomUUID(), audienceId: null, status: 'COMPLETE', startTime: 1_700_000_000_000 + s * 1000, finishTime: null }));
        await store.sessions.importSessions(testId, sessions, by);
        const started = performance.now();
        const result = await store.transcripts.importTranscripts(testId, sessions.map((s, i) => ({ sessionId: s.sessionId, vtt: vtts[i] })), by);
        seconds[variant].push((performance.now() - started) / 1000);
        if (result.inserted !== transcripts) throw new Error(`import.transcripts (${label}, ${variant}): ${result.inserted} of ${transcripts} transcripts inserted`);
        if (variant === 'plain') seconds.discarded.push(await discardEntries(dist, store, parsed));
      }
    }
  } finally {
    await Promise.all(Object.values(stores).map((s) => s.database.close()));
  }
  const indexed = median(seconds.indexed);
  const plain = median(seconds.plain.map((s, round) => s - seconds.discarded[round]));
  const ratio = Number((indexed / plain).toFixed(3));
  log(`import.transcripts (${label}): ${cues.toLocaleString('en-US')} cues in ${indexed.toFixed(2)} s with the index, ${plain.toFixed(2)} s without: ${ratio}`);
  const rounded = (list) => list.map((s) => Number(s.toFixed(3)));
  return {
    cues,
    transcripts,
    rounds,
    indexedSeconds: rounded(seconds.indexed),
    withoutIndexSeconds: rounded(seconds.plain),
    discardedSeconds: rounded(seconds.discarded),
    ratio,
  };
}

// --- the group -------------------------------------------------------------------------------

/**
 * Runs what `wanted` asks of: search.sqlite (and mcp.tool.search), search.pg, import.transcripts.
 * Returns the report's `search` section; its `values` are read by the ratio table.
 */
export async function runSearch({ dist, cli, cwd, work, pgUrl, schemas, credential, cues, importCues, importRounds: rounds, seconds, warmupSeconds, runs, logLevel, wanted, log }) {
  const { parseWebVtt } = await import('../../dist/store/webvtt.js');
  const { transcriptEntries, writeSearchEntries } = await import('../../dist/store/search.js');
  const build = { ...dist, parseWebVtt, transcriptEntries, writeSearchEntries };
  const result = { cues, queries: QUERIES.map((q) => q.q + (q.test === undefined ? '' : ' (one test)')), seed: {}, perQueryMs: {}, scenarios: {}, import: {}, values: {} };
  const engines = [
    wanted('search.sqlite') || wanted('mcp.tool.search') ? 'sqlite' : null,
    pgUrl && wanted('search.pg') ? 'pg' : null,
  ].filter(Boolean);
  const servers = {};
  try {
    for (const engine of engines) {
      log(`search: seeding ${cues.toLocaleString('en-US')} cues into ${engine}`);
      let seeded;
      let url;
      if (engine === 'sqlite') {
        const path = join(work, 'search.db');
        seeded = await seedSqliteCues(path, build, { cues, credential });
        url = `sqlite:${path}`;
      } else {
        const schema = `bench_${randomBytes(4).toString('hex')}_search`;
        schemas.push(schema);
        seeded = await seedPostgresCues(pgUrl, schema, build, { cues, credential });
        url = seeded.url;
      }
      result.seed[engine] = { seconds: Number(seeded.seedSeconds.toFixed(2)), cuesPerSecond: Math.round(cues / seeded.seedSeconds), sessions: seeded.sessions.length };
      log(`search: ${engine} seeded in ${seeded.seedSeconds.toFixed(1)} s`);
      const server = await startServer(`server-search-${engine}`, url, { logDir: work, logLevel, cwd, cli, workers: 1 });
      server.token = await precheckToken(server, ourTokenPath, credential);
      const mcpToken = engine === 'sqlite' && wanted('mcp.tool.search') ? await precheckToken(server, ourTokenPath, credential, mcpResource(server)) : null;
      result.perQueryMs[engine] = await precheck(server, engine, seeded, mcpToken);
      log(`search: ${engine}, each query alone (median of 5): ${Object.entries(result.perQueryMs[engine]).map(([q, v]) => `"${q}" ${v.medianMs} ms`).join(', ')}`);
      servers[engine] = { server, seeded, mcpToken };
    }

    const catalog = [
      servers.sqlite && wanted('search.sqlite') ? { id: 'search.sqlite', engine: 'sqlite', request: () => ({ ...restLoad(servers.sqlite.seeded), headers: { authorization: `Bearer ${servers.sqlite.server.token}` } }) } : null,
      servers.sqlite && wanted('mcp.tool.search') ? { id: 'mcp.tool.search', engine: 'sqlite', request: () => { const r = mcpLoad(servers.sqlite.seeded); return { ...r, headers: { ...r.headers, authorization: `Bearer ${servers.sqlite.mcpToken}` } }; } } : null,
      servers.pg ? { id: 'search.pg', engine: 'pg', request: () => ({ ...restLoad(servers.pg.seeded), headers: { authorization: `Bearer ${servers.pg.server.token}` } }) } : null,
    ].filter(Boolean);
    for (const s of catalog) result.scenarios[s.id] = { server: servers[s.engine].server.name, connections: 1, runs: [] };
    for (let round = 1; round <= runs; round++) {
      for (const s of catalog) {
        const { server } = servers[s.engine];
        if (round === 1 && warmupSeconds > 0) await runAutocannon(server, s.request(), { connections: 1, seconds: warmupSeconds });
        const run = await runAutocannon(server, s.request(), { connections: 1, seconds });
        result.scenarios[s.id].runs.push(run);
        log(`${s.id} run ${round}: ${run.reqPerSec} req/s, p50 ${run.p50Ms} ms, p99 ${run.p99Ms} ms, ${run.serverCpuUsPerReq} µs CPU/req${run.non2xx ? `, ${run.non2xx} non-2xx` : ''}`);
      }
    }
  } finally {
    await Promise.all(Object.values(servers).map(({ server }) => stop(server.handle)));
  }

  const clean = (id) => (result.scenarios[id]?.runs ?? []).filter((r) => r.non2xx === 0 && !r.errors && !r.timeouts);
  const medianOf = (id, field) => (clean(id).length ? median(clean(id).map((r) => r[field])) : null);
  for (const engine of ['sqlite', 'pg']) {
    if (!result.scenarios[`search.${engine}`]) continue;
    result.values[`search.${engine}.p50Ms`] = medianOf(`search.${engine}`, 'p50Ms');
    result.values[`search.${engine}.p99Ms`] = medianOf(`search.${engine}`, 'p99Ms');
  }
  if (result.scenarios['mcp.tool.search'] && result.scenarios['search.sqlite']) {
    const [tool, rest] = [medianOf('mcp.tool.search', 'serverCpuUsPerReq'), medianOf('search.sqlite', 'serverCpuUsPerReq')];
    result.values['mcp.tool.search/search.sqlite'] = tool === null || !rest ? null : Number((tool / rest).toFixed(3));
  }

  if (wanted('import.transcripts')) {
    const sqliteOpen = (variant) => dist.openStore(`sqlite:${join(work, `import-transcripts-${variant}.db`)}`, clock);
    result.import.sqlite = await importRounds({ dist: build, open: sqliteOpen, withoutIndex: SQLITE_WITHOUT_INDEX, cues: importCues, rounds, log, label: 'sqlite' });
    result.values['import.transcripts.sqlite'] = result.import.sqlite.ratio;
    if (pgUrl) {
      const tag = randomBytes(4).toString('hex');
      const pgOpen = (variant) => {
        const schema = `bench_${tag}_import_${variant}`;
        schemas.push(schema);
        return dist.openStore(pgUrl, clock, { schema });
      };
      result.import.pg = await importRounds({ dist: build, open: pgOpen, withoutIndex: POSTGRES_WITHOUT_INDEX, cues: importCues, rounds, log, label: 'pg' });
      result.values['import.transcripts.pg'] = result.import.pg.ratio;
    }
  }
  return result;
}

const num = (v, digits = 0) => (v === null || v === undefined ? '-' : Number(v).toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }));

/** The group's lines in the printed report. */
export function searchLines(search) {
  const lines = [''];
  lines.push(`search: ${num(search.cues)} transcript cues, one client, queries cycled: ${search.queries.map((q) => `"${q}"`).join(', ')}`);
  for (const [engine, s] of Object.entries(search.seed)) lines.push(`  seeded ${engine} in ${num(s.seconds, 1)} s (${num(s.cuesPerSecond)} cues/s)`);
  for (const [id, s] of Object.entries(search.scenarios)) {
    const runs = s.runs.map((r) => `${num(r.reqPerSec)} req/s p50 ${num(r.p50Ms, 1)} p99 ${num(r.p99Ms, 1)} ms ${num(r.serverCpuUsPerReq)} µs CPU/req${r.non2xx ? ` (${num(r.non2xx)} non-2xx)` : ''}`);
    lines.push(`  ${id}: ${runs.join('; ')}`);
  }
  for (const [engine, queries] of Object.entries(search.perQueryMs)) {
    lines.push(`  ${engine}, each query alone (median of 5, ms): ${Object.entries(queries).map(([q, v]) => `"${q}" ${num(v.medianMs, 1)} (${num(v.matches)} cues)`).join(', ')}`);
  }
  for (const [engine, i] of Object.entries(search.import)) {
    lines.push(
      `  import.transcripts ${engine}: ${num(i.cues)} cues (${num(i.transcripts)} transcripts), with the index ${i.indexedSeconds.join(', ')} s, ` +
        `without ${i.withoutIndexSeconds.join(', ')} s, less the entries it built and discarded ${i.discardedSeconds.join(', ')} s: ${num(i.ratio, 3)}×`,
    );
  }
  return lines;
}
