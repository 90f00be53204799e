#!/usr/bin/env node
/**
 * `npm run bench`: the benchmark of issue 7, in one invocation on one machine.
 *
 * 1. Generates its data into fresh databases in a temporary directory: 1,000,000 sessions
 *    over 1,000 tests (one test holds 200,000, one 10,000 for the full scan) and a separate
 *    10,000-session database; the same in PostgreSQL when DATABASE_URL names one (in
 *    throw-away schemas). Times `results-api sessions import` of 1,000,000 sessions.
 * 2. Starts the production build (`node dist/cli/main.js serve`, one process per database)
 *    and two references: a plain node:http server answering the exact bytes of the offset-0
 *    page (the ceiling) and oidc-provider issuing RS256 JWTs by client credentials (the peer).
 * 3. Drives each scenario with autocannon from this process (loopback, 50 connections, a
 *    warm-up, then each scenario twice, interleaved), reading the server's CPU time and peak
 *    RSS from /proc around every run.
 * 4. Prints the tables and the ratios against the targets, and writes
 *    bench/results/<timestamp>.json and bench/results/latest.json.
 *
 * Needs `npm run build` first. See docs/PERFORMANCE.md, or `node bench/run.mjs --help`.
 */
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { clearTimeout, setTimeout } from 'node:timers';
import { fileURLToPath, URL } from 'node:url';
import { parseArgs } from 'node:util';
import { layoutOf, singleTestLayout } from './lib/data.mjs';
import { runDetails } from './lib/details-scenario.mjs';
import { runExport } from './lib/export-scenario.mjs';
import { runClipBench } from './lib/clip-scenario.mjs';
import { runImport } from './lib/import-scenario.mjs';
import { runVideoDownload } from './lib/video-scenario.mjs';
import { runTranscriptCues } from './lib/transcript-cues-scenario.mjs';
import { runWebhooksBench } from './lib/webhooks-scenario.mjs';
import { runDemoGenerate } from './lib/demo-generate-scenario.mjs';
import { runSearch } from './lib/search-scenario.mjs';
import { killAllNow, stopAll } from './lib/processes.mjs';
import { bestRun, computeRatios, formatTables, gitInfo, machineInfo, peakRssUnderList, writeReport } from './lib/report.mjs';
import { scenarioCatalog, runScenarios } from './lib/scenarios.mjs';
import { dropPostgresSchemas, postgresUrlWithSchema, seedPostgres, seedSqlite } from './lib/seed.mjs';
import { childEnv, ourTokenPath, precheckPage, precheckToken, startReference, startServer } from './lib/servers.mjs';
import { precheckTranscript } from './lib/transcript.mjs';
import { callTool, mcpResource } from './lib/mcp.mjs';
import { summarizeProfile } from './profile-summary.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist', 'cli', 'main.js');

const PROFILES = {
  full: {
    totalSessions: 1_000_000,
    testCount: 1000,
    bigTest: 200_000,
    scanTest: 10_000,
    db10k: 10_000,
    importSessions: 1_000_000,
    deepOffset: 10_000,
    scanLimit: 500,
    seconds: 10,
    warmupSeconds: 3,
    runs: 2,
    connections: 50,
    importTimeoutSeconds: 300,
    videoMegabytes: 100,
    videoRuns: 3,
    exportSessions: 1_000_000,
    exportTimeoutSeconds: 600,
    detailsSessions: 10_000,
    detailsGrowFactor: 10,
    clip: { sourceSeconds: 60, size: '1280x720', startMs: 10_000, endMs: 25_000, rounds: 3 },
    transcriptCues: 1_000_000,
    webhooks: { events: 20_000, importSessions: 100_000, concurrency: 64 },
    search: { cues: 1_000_000, importCues: 108_000, importRounds: 3 },
    demoSessions: 1_000_000,
    // A million sessions take 10-20 minutes alone on 2 cores; a shared machine, longer.
    demoTimeoutSeconds: 60 * 60,
    // The rest of a full run takes 15-25 minutes beside the million-session demo's bound.
    watchdogSeconds: 90 * 60,
  },
  smoke: {
    totalSessions: 2_000,
    testCount: 10,
    bigTest: 1_000,
    scanTest: 500,
    db10k: 200,
    importSessions: 2_000,
    deepOffset: 500,
    scanLimit: 100,
    seconds: 1,
    warmupSeconds: 0,
    runs: 1,
    // Few connections: a 1-s run counts only the answers that finish inside it, and on a busy CI
    // machine none of 50 cold requests to oidc-provider (~2 ms of CPU each) finished in time.
    connections: 8,
    importTimeoutSeconds: 60,
    videoMegabytes: 12,
    videoRuns: 1,
    // Beyond the offset bound even counting COMPLETE sessions only (10,800 of them), so the cursor path runs.
    exportSessions: 14_400,
    exportTimeoutSeconds: 60,
    detailsSessions: 300,
    detailsGrowFactor: 3,
    clip: { sourceSeconds: 4, size: '320x240', startMs: 1000, endMs: 3000, rounds: 1 },
    transcriptCues: 20_000,
    webhooks: { events: 500, importSessions: 2_000, concurrency: 16 },
    search: { cues: 20_000, importCues: 3_600, importRounds: 1 },
    demoSessions: 2_000,
    demoTimeoutSeconds: 120,
    watchdogSeconds: 4 * 60,
  },
};

const USAGE = `usage: node bench/run.mjs [options]
  --smoke          tiny data, 1 s runs, no warm-up: proves the harness works (~30 s)
  --out DIR        where the JSON goes (default bench/results, bench/results/smoke with --smoke)
  --only ID,ID     only these scenarios (e.g. list.offset10k, import.sessions, export.sessions, video.download, details.fetch, clip.generate,
                   transcript.cues, demo.generate, webhooks.delivery, pg.webhooks.delivery, mcp.tool.list_sessions, search.sqlite,
                   mcp.tool.search, search.pg, import.transcripts); writes *-partial.json
  --cpu-prof       profile the SQLite server (node --cpu-prof) and print where its time went
  --duration S     seconds per measured run (default 10)
  --log-level L    the servers' LOG_LEVEL (default warn)
  --workers N      serve --workers N (default 1, like the single-process references)
  --no-admin       the measured servers run without the admin listener (ADMIN_PORT=off), as
                   builds before the admin console did: a like-for-like comparison with those
  --check          exit 1 when a target is missed
With DATABASE_URL=postgres://... the PostgreSQL store is measured too (pg.* scenarios).`;

class UsageError extends Error {}

function options() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        smoke: { type: 'boolean', default: false },
        out: { type: 'string' },
        only: { type: 'string' },
        'cpu-prof': { type: 'boolean', default: false },
        duration: { type: 'string' },
        'log-level': { type: 'string', default: 'warn' },
        workers: { type: 'string', default: '1' },
        'no-admin': { type: 'boolean', default: false },
        check: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (err) {
    throw new UsageError(err.message);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const profile = { ...PROFILES[values.smoke ? 'smoke' : 'full'] };
  if (values.duration !== undefined) {
    const seconds = Number(values.duration);
    if (!(seconds >= 1 && seconds <= 60)) throw new UsageError(`--duration must be 1-60 seconds (got ${values.duration})`);
    profile.seconds = seconds;
  }
  const workers = Number(values.workers);
  if (!(Number.isInteger(workers) && workers >= 1 && workers <= 64)) throw new UsageError(`--workers must be 1-64 (got ${values.workers})`);
  return {
    mode: values.smoke ? 'smoke' : 'full',
    workers,
    adminListener: !values['no-admin'],
    profile,
    outDir: values.out ?? join(ROOT, 'bench', 'results', values.smoke ? 'smoke' : ''),
    only: values.only ? new Set(values.only.split(',').map((s) => s.trim())) : null,
    cpuProf: values['cpu-prof'],
    logLevel: values['log-level'],
    check: values.check,
  };
}

const startedAtMs = Date.now();
const log = (message) => process.stderr.write(`[bench +${((Date.now() - startedAtMs) / 1000).toFixed(0)}s] ${message}\n`);

async function loadDist() {
  for (const file of ['cli/main.js', 'store/open-store.js', 'oauth/client-secrets.js']) {
    if (!existsSync(join(ROOT, 'dist', file))) throw new UsageError(`dist/${file} is missing: run \`npm run build\` first`);
  }
  const { openStore } = await import('../dist/store/open-store.js');
  const { SecretHasher, generateClientId, generateClientSecret } = await import('../dist/oauth/client-secrets.js');
  const { newSecretToken, tokenHash } = await import('../dist/sign-in/secret-tokens.js');
  // The benchmark seeds before any server runs: there is nobody to announce changes to.
  const openQuietStore = (databaseUrl, clock, postgres) => openStore(databaseUrl, { clock, announce: async () => {}, postgres });
  return { openStore: openQuietStore, SecretHasher, generateClientId, generateClientSecret, newSecretToken, tokenHash };
}

const round2 = (n) => Number(n.toFixed(2));

/**
 * token.code exchanges at most this many codes a second (about 3 times what one server process
 * managed on the reference machine); a faster one runs out of codes and its run shows non-2xx.
 */
const CODES_PER_SECOND = 4000;

/** Seeds every database of the run; returns the targets (what the servers will serve) and their description. */
async function seedAll({ p, dist, work, pgUrl, schemas, wanted }) {
  // The app of token.refresh, and enough of its user's grants for every connection of every run (each run starts fresh chains).
  const app = { clientId: dist.generateClientId(), clientSecret: dist.generateClientSecret(), grants: p.connections * (p.runs + 1) };
  const credential = { clientId: dist.generateClientId(), clientSecret: dist.generateClientSecret(), app };
  // The codes of token.code (one per request, on the 1M-session server only), for up to CODES_PER_SECOND exchanges in every second it runs.
  const codeCount = wanted('token.code') ? CODES_PER_SECOND * (p.warmupSeconds + p.seconds * p.runs) : 0;
  const layouts = {
    big: layoutOf({ totalSessions: p.totalSessions, testCount: p.testCount, bigTest: p.bigTest, scanTest: p.scanTest }),
    small: singleTestLayout(p.db10k),
  };
  const targets = { credential };
  const data = {};
  const describe = (target, layout, method) => ({
    sessions: layout.totalSessions,
    tests: layout.counts.length,
    seedSeconds: round2(target.seedSeconds),
    seedSessionsPerSecond: target.seedSessionsPerSecond,
    method,
  });

  log(`seeding SQLite: ${p.totalSessions.toLocaleString('en-US')} sessions over ${p.testCount} tests, and ${p.db10k.toLocaleString('en-US')}`);
  const sqliteMethod = 'user, credential, workspace, tests by the repositories; sessions by prepared inserts in one transaction';
  for (const [key, layout, file] of [['sqlite', layouts.big, 'bench-1m.db'], ['sqlite10k', layouts.small, 'bench-10k.db']]) {
    const codes = key === 'sqlite' ? codeCount : 0;
    targets[key] = { kind: 'sqlite', counts: layout.counts, ...(await seedSqlite(join(work, file), dist, { layout, credential, codeCount: codes })) };
    data[key] = describe(targets[key], layout, sqliteMethod);
  }

  if (pgUrl) {
    const tag = randomBytes(4).toString('hex');
    log(`seeding PostgreSQL (schemas bench_${tag}_1m, bench_${tag}_10k)`);
    const pgMethod = 'user, credential, workspace, tests by the repositories; sessions by INSERT ... SELECT FROM generate_series, per test';
    for (const [key, layout, schema] of [['pg', layouts.big, `bench_${tag}_1m`], ['pg10k', layouts.small, `bench_${tag}_10k`]]) {
      schemas.push(schema);
      const seeded = await seedPostgres(pgUrl, schema, dist, { layout, credential });
      targets[key] = { kind: 'postgres', counts: layout.counts, ...seeded };
      data[key] = describe(targets[key], layout, pgMethod);
    }
    targets.postgres = true;
  }
  return { targets, data };
}

/** Starts the servers the catalog needs, proves each answers right, and returns them by key. */
async function startAll({ catalog, targets, opts, work, profileDir }) {
  const needed = new Set(catalog.map((s) => s.server));
  // The ceiling answers the bytes the SQLite server sent.
  if (needed.has('reference')) needed.add('sqlite');
  const common = { logDir: work, cwd: ROOT };
  const servers = {};
  log(`starting ${[...needed].join(', ')}`);
  const databases = ['sqlite', 'sqlite10k', 'pg', 'pg10k'].filter((key) => needed.has(key));
  // token.signing: a second server on the 1M SQLite file that signs every token request. The MCP
  // tool calls run on a process of their own too: the heap their load grows would otherwise stay
  // under the list load that follows them in the round, whose peak RSS is a target.
  const variants = {
    'sqlite-signing': { database: 'sqlite', env: { TOKEN_REUSE_SECONDS: '0' } },
    'sqlite-mcp': { database: 'sqlite' },
    'pg-mcp': { database: 'pg' },
  };
  const keys = [...databases, ...Object.keys(variants).filter((key) => needed.has(key))];
  await Promise.all(
    keys.map(async (key) => {
      const target = targets[variants[key]?.database ?? key];
      const nodeArgs = opts.cpuProf && key === 'sqlite' ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
      const url = target.kind === 'sqlite' ? `sqlite:${target.path}` : target.url;
      const server = await startServer(`server-${key}`, url, {
        ...common,
        cli: CLI,
        logLevel: opts.logLevel,
        workers: opts.workers,
        adminListener: opts.adminListener,
        nodeArgs,
        env: variants[key]?.env,
      });
      server.target = target;
      server.token = await precheckToken(server, ourTokenPath, targets.credential);
      servers[key] = server;
      log(`${server.name} ready`);
    }),
  );
  if (needed.has('oidc')) {
    const { clientId, clientSecret } = targets.credential;
    const env = { REF_CLIENT_ID: clientId, REF_CLIENT_SECRET: clientSecret };
    servers.oidc = await startReference('reference-oidc-provider', 'reference-oidc-provider.mjs', env, common);
    await precheckToken(servers.oidc, '/token', targets.credential);
  }

  // Every page the benchmark reads, and unaligned offsets around them where a reader that
  // seeks could slip, is first compared with SQL: a fast wrong answer cannot pass.
  const p = opts.profile;
  let offset0 = null;
  for (const key of databases) {
    const server = servers[key];
    const testId = server.target.testIds[0];
    const first = await precheckPage(server, testId, 0, 'limit=25&offset=0');
    if (key === 'sqlite') offset0 = first;
    if (servers[`${key}-mcp`]) await precheckMcp(servers[`${key}-mcp`], targets.credential, testId, first);
    await precheckPage(server, testId, p.deepOffset, `rowsPerPage=25&pageNumber=${p.deepOffset / 25 + 1}`);
    for (const offset of [p.deepOffset, p.deepOffset - 7, 99, 101, 1999, Math.floor(p.deepOffset / 3)]) {
      await precheckPage(server, testId, offset, `limit=25&offset=${offset}`);
    }
    await precheckTranscript(server);
  }
  if (needed.has('reference')) {
    const capture = join(work, 'offset0-response.json');
    const { status, headers, body } = offset0;
    writeFileSync(capture, JSON.stringify({ status, headers, bodyBase64: body.toString('base64') }));
    servers.reference = await startReference('reference-http', 'reference-http.mjs', { REF_RESPONSE_FILE: capture }, common);
    servers.reference.bodyBytes = body.length;
  }
  return servers;
}

/**
 * A token bound to the server's MCP endpoint, and the proof that list_sessions answers the
 * sessions of the REST page it wraps (`restPage`, the offset-0 page already checked against SQL).
 */
async function precheckMcp(server, credential, testId, restPage) {
  server.mcpToken = await precheckToken(server, ourTokenPath, credential, mcpResource(server));
  const tool = await callTool(server, server.mcpToken, 'list_sessions', { testId, limit: 25 });
  const rest = JSON.parse(restPage.body.toString('utf8'));
  if (JSON.stringify(tool.sessions) !== JSON.stringify(rest.sessions) || tool.totalCount !== rest.meta.pagination.totalCount) {
    throw new Error(`${server.name}: the MCP tool list_sessions does not answer the sessions of GET /api/v2/sessionResults`);
  }
}

async function main() {
  const opts = options();
  const p = opts.profile;
  const partial = opts.only !== null;
  const wanted = (id) => !partial || opts.only.has(id);
  const dist = await loadDist();
  const envUrl = process.env.DATABASE_URL ?? '';
  const needsPostgres = (id) => id.startsWith('pg.') || ['export.sessions', 'search.pg', 'import.transcripts'].includes(id);
  const pgUrl = /^postgres(ql)?:\/\//.test(envUrl) && (!partial || [...opts.only].some(needsPostgres)) ? envUrl : null;
  const work = mkdtempSync(join(tmpdir(), 'results-api-bench-'));
  const profileDir = join(work, 'profiles');
  const schemas = [];
  const report = {
    schemaVersion: 1,
    mode: opts.mode,
    startedAt: new Date(startedAtMs).toISOString(),
    machine: machineInfo(),
    git: gitInfo(ROOT),
    settings: {
      connections: p.connections,
      seconds: p.seconds,
      warmupSeconds: p.warmupSeconds,
      runs: p.runs,
      serverLogLevel: opts.logLevel,
      serverWorkers: opts.workers,
      serverAdminListener: opts.adminListener,
      rateLimits: 'raised to 1e9 per window',
      judgedBy: 'the fastest run of each scenario with only 2xx answers',
      cpuPerRequest: 'user+system CPU time of the server process tree (/proc/<pid>/stat) over the run / requests; excludes PostgreSQL',
      peakRss: 'largest VmHWM of one server process (and the sum over its processes), reset (clear_refs) before each run of the list load',
      only: partial ? [...opts.only] : null,
      profile: p,
    },
    data: {},
    import: null,
    export: null,
    details: null,
    scenarios: {},
  };

  let cleaning;
  const cleanup = () =>
    (cleaning ??= (async () => {
      await stopAll();
      if (schemas.length > 0) {
        await dropPostgresSchemas(pgUrl, schemas).catch((err) => log(`could not drop schemas ${schemas.join(', ')}: ${err.message}`));
      }
      rmSync(work, { recursive: true, force: true });
    })());
  const abort = (why, code) => {
    log(why);
    killAllNow();
    void cleanup().finally(() => process.exit(code));
  };
  process.once('SIGINT', () => abort('SIGINT: stopping', 130));
  process.once('SIGTERM', () => abort('SIGTERM: stopping', 143));
  const watchdog = setTimeout(() => abort(`still running after ${p.watchdogSeconds} s: giving up`, 1), p.watchdogSeconds * 1000);
  watchdog.unref();

  const profileFiles = [];
  let failed = true;
  try {
    // First, so the import has the machine to itself: no server yet, and no PostgreSQL still
    // busy with (auto-vacuuming, checkpointing) the million rows just seeded into it.
    if (wanted('import.sessions')) {
      const env = childEnv(opts.logLevel);
      const timeoutSeconds = p.importTimeoutSeconds;
      report.import = await runImport({ dist, cli: CLI, cwd: ROOT, work, env, sessions: p.importSessions, timeoutSeconds, log });
      log(`import: ${report.import.error ?? `${report.import.sessionsPerSec.toLocaleString('en-US')} sessions/s`}`);
    }

    // The generator, right after the import it is compared with, while the machine is still quiet.
    if (wanted('demo.generate')) {
      const env = childEnv(opts.logLevel);
      report.demoGenerate = await runDemoGenerate({
        cli: CLI, cwd: ROOT, work, env, sessions: p.demoSessions, timeoutSeconds: p.demoTimeoutSeconds,
        importSessionsPerSec: report.import?.sessionsPerSec, log,
      });
      if (report.demoGenerate.error) log(`demo.generate: ${report.demoGenerate.error}`);
    }

    if (wanted('video.download')) {
      report.videoDownload = await runVideoDownload({ cli: CLI, cwd: ROOT, work, logLevel: opts.logLevel, megabytes: p.videoMegabytes, runs: p.videoRuns, log });
      log(`video.download: ${report.videoDownload.oursMbPerSec} MB/s through the signed link, ${report.videoDownload.plainMbPerSec} MB/s plain`);
    }

    if (wanted('clip.generate')) {
      report.clip = await runClipBench({ cli: CLI, cwd: ROOT, work, logLevel: opts.logLevel, log, shape: p.clip });
      log(`clip: ${report.clip.error ?? `ffmpeg alone ${report.clip.ffmpegAloneMs.median} ms, as a job ${report.clip.jobMs.median} ms`}`);
    }

    // A 1M-cue transcript: parsed, stored, and its admin page served while /healthz is timed.
    if (wanted('transcript.cues')) {
      report.transcriptCues = await runTranscriptCues({ dist, cli: CLI, cwd: ROOT, work, cues: p.transcriptCues, connections: p.connections, seconds: p.seconds, logLevel: opts.logLevel, log });
    }

    // Delivery to a local receiver, and the import's cost with a subscription present.
    if (wanted('webhooks.delivery')) {
      report.webhooks = await runWebhooksBench({ cli: CLI, cwd: ROOT, work, logLevel: opts.logLevel, log, ...p.webhooks });
    }
    if (wanted('pg.webhooks.delivery') && pgUrl) {
      // The delivery run's schema, and the import comparison's two.
      const [databaseUrl, ...importDatabaseUrls] = await Promise.all(['hooks', 'import_without', 'import_with'].map(async (name) => {
        const schema = `bench_${randomBytes(4).toString('hex')}_${name}`;
        schemas.push(schema);
        const store = await dist.openStore(pgUrl, { now: () => Date.now() }, { schema });
        await store.database.migrate();
        await store.database.close();
        return postgresUrlWithSchema(pgUrl, schema);
      }));
      report.pgWebhooks = await runWebhooksBench({ cli: CLI, cwd: ROOT, work, logLevel: opts.logLevel, log, databaseUrl, importDatabaseUrls, ...p.webhooks });
    }

    // Search over a million transcript cues, MCP's search against REST's, and the index's cost to the import.
    if (['search.sqlite', 'mcp.tool.search', 'search.pg', 'import.transcripts'].some(wanted)) {
      const credential = { clientId: dist.generateClientId(), clientSecret: dist.generateClientSecret() };
      report.search = await runSearch({
        dist, cli: CLI, cwd: ROOT, work, pgUrl, schemas, credential, ...p.search,
        seconds: p.seconds, warmupSeconds: p.warmupSeconds, runs: p.runs, logLevel: opts.logLevel, wanted, log,
      });
    }

    // The 1M and 10k databases serve the load scenarios, the export and the details: a partial run
    // of only the scenarios above (webhooks, search, imports) seeds nothing more.
    const seeded = ['export.sessions', 'details.fetch', ...scenarioCatalog(p, { postgres: true }).map((s) => s.id)].some(wanted);
    const { targets, data } = seeded ? await seedAll({ p, dist, work, pgUrl, schemas, wanted }) : { targets: {}, data: {} };

    // A whole test beyond the offset bound, by cursor, before the load scenarios start their servers.
    if (wanted('export.sessions')) {
      report.export = await runExport({
        dist,
        cli: CLI,
        cwd: ROOT,
        work,
        sessions: p.exportSessions,
        pgUrl,
        schemas,
        logLevel: opts.logLevel,
        timeoutSeconds: p.exportTimeoutSeconds,
        log,
        credential: targets.credential,
      });
    }
    report.data = data;

    // Session details and QXscores of a test of detailed sessions, on a server of its own.
    if (wanted('details.fetch')) {
      report.details = await runDetails({
        dist,
        cli: CLI,
        cwd: ROOT,
        work,
        sessions: p.detailsSessions,
        growFactor: p.detailsGrowFactor,
        connections: p.connections,
        seconds: p.seconds,
        logLevel: opts.logLevel,
        log,
        credential: targets.credential,
      });
    }

    const catalog = scenarioCatalog(p, targets).filter((s) => wanted(s.id));
    const servers = await startAll({ catalog, targets, opts, work, profileDir });
    if (servers.reference) report.referenceBodyBytes = servers.reference.bodyBytes;
    report.scenarios = await runScenarios(catalog, servers, p, log);
    failed = false;
  } finally {
    await stopAll();
    // The processes' logs explain a failure; keep them before the work dir goes.
    if (failed) {
      const logs = join(opts.outDir, `failed-${report.startedAt.replace(/[:.]/g, '-')}`);
      mkdirSync(logs, { recursive: true });
      for (const name of readdirSync(work).filter((f) => f.endsWith('.log'))) copyFileSync(join(work, name), join(logs, name));
      log(`logs of the failed run: ${logs}`);
    }
    // A server writes its --cpu-prof profile as it exits: keep it before the work dir goes.
    if (existsSync(profileDir)) {
      mkdirSync(opts.outDir, { recursive: true });
      for (const name of readdirSync(profileDir)) {
        const dest = join(opts.outDir, `server-${report.startedAt.replace(/[:.]/g, '-')}-${name}`);
        copyFileSync(join(profileDir, name), dest);
        profileFiles.push(dest);
      }
    }
    await cleanup();
    clearTimeout(watchdog);
  }

  for (const s of Object.values(report.scenarios)) s.best = bestRun(s);
  report.ratios = computeRatios(report, { partial });
  report.peakRssUnderList = peakRssUnderList(report.scenarios);
  report.finishedAt = new Date().toISOString();
  report.wallSeconds = Math.round((Date.now() - startedAtMs) / 1000);
  report.machine.loadAverageAtEnd = machineInfo().loadAverage;
  if (profileFiles.length > 0) report.cpuProfiles = profileFiles.map((file) => ({ file, summary: summarizeProfile(file, 25) }));

  process.stdout.write(`\n${formatTables(report)}\n`);
  for (const { file, summary } of report.cpuProfiles ?? []) {
    process.stdout.write(`\nCPU profile of the server: ${file}\n${summary.text}\n`);
  }
  const file = writeReport(report, opts.outDir, { partial });
  log(`wrote ${file}${partial ? '' : ' and latest.json'} (${report.wallSeconds} s in all)`);
  if (opts.check && report.ratios.some((r) => !r.pass)) process.exitCode = 1;
}

process.on('exit', killAllNow);
main().catch((err) => {
  if (err instanceof UsageError) {
    process.stderr.write(`error: ${err.message}\n${USAGE}\n`);
    process.exitCode = 2;
  } else {
    process.stderr.write(`bench failed: ${err.stack ?? err}\n`);
    process.exitCode = 1;
  }
  killAllNow();
});
