/**
 * Fills a benchmark database. Everything an operator would create with the CLI (user,
 * credential, workspace, membership, tests) goes through the Store API of the build, so it is
 * exactly what the service writes; the bulk of the sessions goes in directly (prepared inserts
 * in one transaction for SQLite, one INSERT ... SELECT per test in PostgreSQL), because the
 * import path is measured on its own.
 *
 * If the sessions table or the stored session counts (tests.session_count, and session_counts
 * per status) change shape, `insertSqliteSessions` and `insertPostgresSessions` are the places
 * to follow. Before measuring, the harness compares
 * every page it will read with an independent SQL query (`expectedPage`), so a seed that
 * bypasses something the server relies on fails loudly instead of measuring the wrong thing.
 */
import { createHash, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { URL } from 'node:url';
import pg from 'pg';
import { forEachSession, NEWEST_START } from './data.mjs';
import { seedTranscript } from './transcript.mjs';

// The better-sqlite3 the running Node loads (src/store/sqlite/driver.ts); the bench runs after `npm run build`.
const Database = (await import('../../dist/store/sqlite/driver.js')).sqliteDriver();
const by = { actor: 'bench' };
const clock = { now: () => Date.now() };
export const BENCH_EMAIL = 'bench@example.com';

/** Creates the API user, its credential, one workspace with the user as member, and the tests. */
async function seedThroughStore(store, dist, { counts, credential, codeCount = 0 }) {
  await store.database.migrate();
  const hasher = await dist.SecretHasher.load(store.settings);
  await store.credentials.createUser(BENCH_EMAIL, by);
  await store.credentials.createCredential(
    { clientId: credential.clientId, email: BENCH_EMAIL, secretHash: hasher.hash(credential.clientSecret) },
    by,
  );
  const workspace = await store.directory.createWorkspace({ id: randomUUID(), name: 'Benchmark lab' }, by);
  await store.directory.addMember(workspace.id, BENCH_EMAIL, by);
  const testIds = [];
  for (let i = 0; i < counts.length; i++) {
    const id = randomUUID();
    await store.directory.createTest({ id, workspaceId: workspace.id, title: `Benchmark test ${i + 1}`, productType: 'SURVEY' }, by);
    testIds.push(id);
  }
  const refreshTokens = credential.app ? await seedRefreshTokens(store, dist, hasher, credential.app) : [];
  const codes = credential.app && codeCount > 0 ? await seedCodes(store, dist, credential.app, codeCount) : [];
  return { workspaceId: workspace.id, testIds, refreshTokens, codes };
}

/**
 * token.refresh: a confidential app and `app.grants` grants of the bench user to it, each with
 * its first refresh token, made as the token endpoint makes them (a code exchanged by the
 * repository), so every connection of every run starts its own rotation chain.
 */
async function seedRefreshTokens(store, dist, hasher, app) {
  await store.apps.createApp(
    { clientId: app.clientId, name: 'Benchmark app', clientType: 'confidential', origin: 'registered', redirectUris: [BENCH_REDIRECT_URI], scopes: ['studies:read'], secretHash: hasher.hash(app.clientSecret) },
    by,
  );
  const user = await store.credentials.findUserByEmail(BENCH_EMAIL);
  const tokens = [];
  for (let i = 0; i < app.grants; i++) {
    const code = dist.newSecretToken();
    const refresh = dist.newSecretToken();
    await store.apps.createCode({ codeHash: dist.tokenHash(code), clientId: app.clientId, userId: user.id, redirectUri: BENCH_REDIRECT_URI, codeChallenge: 'x'.repeat(43), scopes: ['studies:read'], resource: null, expiresAt: Date.now() + 3600_000 });
    const exchanged = await store.apps.exchangeCode(dist.tokenHash(code), () => null, { grantId: randomUUID(), refreshHash: dist.tokenHash(refresh), refreshExpiresAt: Date.now() + 30 * 24 * 3600_000 });
    if (!exchanged.ok) throw new Error(`seeding a grant failed: ${exchanged.reason}`);
    tokens.push(refresh);
  }
  return tokens;
}

/** The PKCE verifier of every seeded code (RFC 7636): the token endpoint checks it per exchange as for any code. */
export const BENCH_CODE_VERIFIER = 'bench-verifier-'.padEnd(64, 'v');
export const BENCH_REDIRECT_URI = 'http://127.0.0.1/cb';

/**
 * token.code: `count` authorization codes of the bench user for the app, minted by the
 * repository function the authorize route calls once the user allows (`apps.createCode`),
 * with an S256 challenge. Minted before the servers start (a code per request of every run);
 * they live two hours instead of the route's 60 s so a whole bench run can use them, which
 * changes no work of the exchange.
 */
async function seedCodes(store, dist, app, count) {
  const user = await store.credentials.findUserByEmail(BENCH_EMAIL);
  const codeChallenge = createHash('sha256').update(BENCH_CODE_VERIFIER).digest('base64url');
  const expiresAt = Date.now() + 2 * 3600_000;
  const codes = [];
  for (let i = 0; i < count; i++) {
    const code = dist.newSecretToken();
    await store.apps.createCode({ codeHash: dist.tokenHash(code), clientId: app.clientId, userId: user.id, redirectUri: BENCH_REDIRECT_URI, codeChallenge, scopes: ['studies:read'], resource: null, expiresAt });
    codes.push(code);
  }
  return codes;
}

/** A fresh SQLite database at `path` holding `layout`. Returns ids and how long the sessions took. */
export async function seedSqlite(path, dist, { layout, credential, codeCount = 0, transcript = true }) {
  const store = await dist.openStore(`sqlite:${path}`, clock);
  let ids;
  try {
    ids = await seedThroughStore(store, dist, { counts: layout.counts, credential, codeCount });
  } finally {
    await store.database.close();
  }
  const started = performance.now();
  insertSqliteSessions(path, ids.testIds, layout.counts);
  const seconds = (performance.now() - started) / 1000;
  const transcriptSessionId = transcript ? await withStore(dist.openStore(`sqlite:${path}`, clock), (s) => seedTranscript(s, ids.testIds[0])) : null;
  return { ...ids, path, transcriptSessionId, seedSeconds: seconds, seedSessionsPerSecond: Math.round(layout.totalSessions / seconds) };
}

async function withStore(opening, fn) {
  const store = await opening;
  try {
    return await fn(store);
  } finally {
    await store.database.close();
  }
}

function insertSqliteSessions(path, testIds, counts) {
  const db = new Database(path);
  try {
    // A throw-away file: no journal, no fsync, a large page cache for the session_id index.
    db.pragma('journal_mode = DELETE');
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -524288');
    const insert = db.prepare(
      `INSERT INTO sessions (test_id, start_time, session_id, audience_id, status, finish_time)
       VALUES (?, ?, ?, ?, ?, ?)`,
    );
    const setCount = db.prepare('UPDATE tests SET session_count = ? WHERE id = ?');
    db.transaction(() => {
      testIds.forEach((testId, index) => {
        forEachSession(index, counts[index], (sessionId, audienceId, status, startTime, finishTime) => {
          insert.run(testId, startTime, sessionId, audienceId, status, finishTime);
        });
        setCount.run(counts[index], testId);
      });
      db.exec(COUNT_BY_STATUS);
    })();
    db.pragma('journal_mode = WAL');
  } finally {
    db.close();
  }
}

/** What every import stores: the sessions of each test per status (the API's totalCount reads COMPLETE). */
const COUNT_BY_STATUS = `INSERT INTO session_counts (test_id, status, session_count)
  SELECT test_id, status, COUNT(*) FROM sessions GROUP BY test_id, status`;

/** `DATABASE_URL` with its search_path set to `schema` (libpq startup options). */
export function postgresUrlWithSchema(databaseUrl, schema) {
  const url = new URL(databaseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.href;
}

/**
 * A fresh schema in the PostgreSQL database of `databaseUrl`, holding `layout`. The sessions
 * are generated inside PostgreSQL (generate_series, gen_random_uuid) by the same rules as
 * `forEachSession`: shipping a million rows over the wire through the session repository's import takes
 * minutes, which the benchmark's ten-minute budget cannot spare.
 */
export async function seedPostgres(databaseUrl, schema, dist, { layout, credential, transcript = true }) {
  const store = await dist.openStore(databaseUrl, clock, { schema });
  let ids;
  try {
    ids = await seedThroughStore(store, dist, { counts: layout.counts, credential });
  } finally {
    await store.database.close();
  }
  const url = postgresUrlWithSchema(databaseUrl, schema);
  const started = performance.now();
  await insertPostgresSessions(url, ids.testIds, layout.counts);
  const seconds = (performance.now() - started) / 1000;
  const transcriptSessionId = transcript ? await withStore(dist.openStore(databaseUrl, clock, { schema }), (s) => seedTranscript(s, ids.testIds[0])) : null;
  return { ...ids, url, transcriptSessionId, seedSeconds: seconds, seedSessionsPerSecond: Math.round(layout.totalSessions / seconds) };
}

async function insertPostgresSessions(url, testIds, counts) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN');
    for (let index = 0; index < testIds.length; index++) {
      // i = 0 is the newest session; see forEachSession for the rules.
      await client.query(
        `INSERT INTO sessions (test_id, start_time, session_id, audience_id, status, finish_time)
         SELECT $1::text, t.start, gen_random_uuid()::text,
                CASE WHEN t.i % 3 = 0 THEN NULL ELSE gen_random_uuid()::text END,
                CASE WHEN t.i % 4 = 0 THEN 'INCOMPLETE' ELSE 'COMPLETE' END,
                CASE WHEN t.i % 4 = 0 THEN NULL ELSE t.start + 60000 + (t.i % 600) * 1000 END
           FROM (SELECT i, $2::bigint - (i - i / 10) * 1000 AS start
                   FROM generate_series($3::bigint - 1, 0, -1) AS i) AS t`,
        [testIds[index], NEWEST_START - index * 60_000, counts[index]],
      );
      await client.query('UPDATE tests SET session_count = $2 WHERE id = $1', [testIds[index], counts[index]]);
    }
    await client.query(COUNT_BY_STATUS);
    await client.query('COMMIT');
    await client.query('ANALYZE sessions');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await client.end();
  }
}

export async function dropPostgresSchemas(databaseUrl, schemas) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (const schema of schemas) {
      if (!/^bench_[a-z0-9_]+$/.test(schema)) throw new Error(`refusing to drop schema "${schema}"`);
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    }
  } finally {
    await client.end();
  }
}

/**
 * The session ids of one page (completed sessions only, as the API lists them), read with
 * plain SQL independently of the service: the oracle the pre-checks compare the server's pages with.
 */
export async function expectedPage(target, testId, offset, limit) {
  const sql = `SELECT session_id FROM sessions WHERE test_id = $1 AND status = 'COMPLETE'
               ORDER BY start_time DESC, session_id DESC LIMIT $2 OFFSET $3`;
  if (target.kind === 'sqlite') {
    const db = new Database(target.path, { readonly: true });
    try {
      return db.prepare(sql.replace(/\$\d/g, '?')).pluck().all(testId, limit, offset);
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: target.url });
  await client.connect();
  try {
    return (await client.query(sql, [testId, limit, offset])).rows.map((r) => r.session_id);
  } finally {
    await client.end();
  }
}
