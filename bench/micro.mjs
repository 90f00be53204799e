#!/usr/bin/env node
/**
 * Micro-measurements behind the design choices in docs/PERFORMANCE.md, each the cost of one
 * operation in isolation (no HTTP), so a choice can be checked on any machine in seconds:
 *
 * - the session count: `COUNT(*)` over a 200,000-session test vs reading a stored count;
 * - the sessions table: a page at offset 0 and 10,000 on the clustered table (primary key
 *   (test_id, start_time, session_id), WITHOUT ROWID: the schema we ship) vs a rowid table
 *   with a secondary index on the same columns;
 * - access tokens: an RS256 signature check (jose jwtVerify) vs a cache hit (Map lookup);
 * - client secrets: HMAC-SHA256 vs scrypt (a slow password KDF; bcrypt costs the same order).
 *
 * Usage: node bench/micro.mjs [--json]
 */
import { createHmac, generateKeyPairSync, randomBytes, scryptSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { SignJWT, jwtVerify } from 'jose';
import { forEachSession } from './lib/data.mjs';

// The better-sqlite3 the running Node loads (src/store/sqlite/driver.ts); the bench runs after `npm run build`.
const Database = (await import('../dist/store/sqlite/driver.js')).sqliteDriver();

const BIG = 200_000;
const OTHERS = 50_000;

/** Microseconds per call of `fn`, over at least `minMs` of calls after a short warm-up. */
function timeIt(fn, minMs = 300) {
  for (let i = 0; i < 20; i++) fn();
  let calls = 0;
  const started = performance.now();
  let elapsed = 0;
  do {
    for (let i = 0; i < 10; i++) fn();
    calls += 10;
    elapsed = performance.now() - started;
  } while (elapsed < minMs);
  return (elapsed * 1000) / calls;
}

async function timeItAsync(fn, minMs = 300) {
  for (let i = 0; i < 20; i++) await fn();
  let calls = 0;
  const started = performance.now();
  let elapsed = 0;
  do {
    await fn();
    calls++;
    elapsed = performance.now() - started;
  } while (elapsed < minMs);
  return (elapsed * 1000) / calls;
}

function sessionsTables(dir) {
  const db = new Database(join(dir, 'micro.db'));
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -262144');
  db.exec(`
    CREATE TABLE clustered (
      test_id TEXT NOT NULL, start_time INTEGER NOT NULL, session_id TEXT NOT NULL,
      audience_id TEXT, status TEXT NOT NULL, finish_time INTEGER,
      PRIMARY KEY (test_id, start_time, session_id)) STRICT, WITHOUT ROWID;
    CREATE TABLE heap (
      session_id TEXT PRIMARY KEY, test_id TEXT NOT NULL, start_time INTEGER NOT NULL,
      audience_id TEXT, status TEXT NOT NULL, finish_time INTEGER) STRICT;
    CREATE INDEX heap_page ON heap (test_id, start_time, session_id);
    CREATE TABLE tests (id TEXT PRIMARY KEY, session_count INTEGER NOT NULL) STRICT;
  `);
  const insertClustered = db.prepare('INSERT INTO clustered VALUES (?, ?, ?, ?, ?, ?)');
  const insertHeap = db.prepare('INSERT INTO heap VALUES (?, ?, ?, ?, ?, ?)');
  db.transaction(() => {
    // Shuffled: sessions of many tests arrive interleaved, so a heap is not clustered by test.
    const rows = [];
    forEachSession(0, BIG, (...r) => rows.push(['big', ...r]));
    forEachSession(1, OTHERS, (...r) => rows.push(['other', ...r]));
    for (let i = rows.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [rows[i], rows[j]] = [rows[j], rows[i]];
    }
    for (const [testId, sessionId, audienceId, status, startTime, finishTime] of rows) {
      insertClustered.run(testId, startTime, sessionId, audienceId, status, finishTime);
      insertHeap.run(sessionId, testId, startTime, audienceId, status, finishTime);
    }
    db.prepare("INSERT INTO tests VALUES ('big', ?), ('other', ?)").run(BIG, OTHERS);
  })();
  db.pragma('cache_size = -2000');
  return db;
}

async function main() {
  const json = process.argv.includes('--json');
  const dir = mkdtempSync(join(tmpdir(), 'results-api-micro-'));
  const results = [];
  const record = (group, name, us) => results.push({ group, name, us: Number(us.toFixed(us < 10 ? 2 : 1)) });
  try {
    process.stderr.write(`building a ${(BIG + OTHERS).toLocaleString('en-US')}-session table twice...\n`);
    const db = sessionsTables(dir);
    const page = (table) =>
      db.prepare(`SELECT session_id, audience_id, status, start_time, finish_time FROM ${table}
                   WHERE test_id = 'big' ORDER BY start_time DESC, session_id DESC LIMIT 25 OFFSET ?`);
    const clustered = page('clustered');
    const heap = page('heap');
    const count = db.prepare("SELECT COUNT(*) FROM clustered WHERE test_id = 'big'").pluck();
    const stored = db.prepare("SELECT session_count FROM tests WHERE id = 'big'").pluck();
    record('session count', 'COUNT(*) over the 200k-session test', timeIt(() => count.get()));
    record('session count', 'stored count (one row by primary key)', timeIt(() => stored.get()));
    record('sessions table', 'clustered (WITHOUT ROWID), offset 0', timeIt(() => clustered.all(0)));
    record('sessions table', 'clustered (WITHOUT ROWID), offset 10,000', timeIt(() => clustered.all(10_000)));
    record('sessions table', 'rowid table + index, offset 0', timeIt(() => heap.all(0)));
    record('sessions table', 'rowid table + index, offset 10,000', timeIt(() => heap.all(10_000)));
    db.close();

    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const token = await new SignJWT({ scope: 'studies:read', client_id: '0oabench' })
      .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: 'k1' })
      .setIssuer('http://127.0.0.1/oauth2/x')
      .setAudience('api://results')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);
    const cache = new Map([[token, { exp: Math.floor(Date.now() / 1000) + 3600 }]]);
    record('access token', 'RS256 sign (jose SignJWT)', await timeItAsync(() => new SignJWT({ a: 1 }).setProtectedHeader({ alg: 'RS256' }).sign(privateKey)));
    record('access token', 'RS256 verify (jose jwtVerify)', await timeItAsync(() => jwtVerify(token, publicKey, { algorithms: ['RS256'] })));
    record('access token', 'verified-token cache hit (Map.get + exp check)', timeIt(() => cache.get(token).exp > Date.now() / 1000));

    const key = randomBytes(32);
    const secret = randomBytes(32).toString('base64url');
    const salt = randomBytes(16);
    record('client secret', 'HMAC-SHA256 of a 256-bit secret', timeIt(() => createHmac('sha256', key).update(secret).digest('base64url')));
    record('client secret', 'scrypt N=16384 r=8 p=1 (slow KDF)', timeIt(() => scryptSync(secret, salt, 32, { N: 16384, r: 8, p: 1 }), 1000));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  if (json) {
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
    return;
  }
  const width = Math.max(...results.map((r) => r.name.length));
  let group = '';
  for (const r of results) {
    if (r.group !== group) process.stdout.write(`\n${(group = r.group)}\n`);
    process.stdout.write(`  ${r.name.padEnd(width)}  ${r.us.toLocaleString('en-US').padStart(10)} µs\n`);
  }
}

await main();
