/**
 * What any search index written inside the transcript import costs at least (issue 32's import
 * target, with / without the index <= 1.3), measured on `import.transcripts`'s own transcripts
 * (108,000 cues, 300 transcripts) before a schema is built for it:
 *   node bench/search-index-floor.mjs [--cues 108000] [--rounds 3]
 * With DATABASE_URL, PostgreSQL too (in a schema of its own, dropped after). Needs a build.
 *
 * Each variant writes the cues' plain texts (markup removed, as the index needs them) in one
 * transaction, 2,000 rows a statement (JSON, as the import writes), into a fresh table of a
 * migrated database; the JavaScript that makes the texts (or the shipped entries) is timed on
 * its own, not in the writes. Compare each with
 * the import without the index (the `import.transcripts` scenario's "without").
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { median } from './lib/load.mjs';
import { CUES_PER_SESSION, vttOf } from './lib/search-scenario.mjs';
import { dropPostgresSchemas } from './lib/seed.mjs';

const { openStore } = await import('../dist/store/open-store.js');
const { parseWebVtt } = await import('../dist/store/webvtt.js');
const { plainCues } = await import('../dist/store/cue-text.js');
const { transcriptEntries, writeSearchEntries } = await import('../dist/store/search.js');

const { values } = parseArgs({ options: { cues: { type: 'string', default: '108000' }, rounds: { type: 'string', default: '3' } } });
const cues = Number(values.cues);
const rounds = Number(values.rounds);
const CHUNK = 2_000;
const PAGE = 200;
const TOKENIZE = "tokenize = 'porter unicode61 remove_diacritics 2'";

const transcripts = Array.from({ length: Math.ceil(cues / CUES_PER_SESSION) }, (_, s) =>
  parseWebVtt(vttOf(s, Math.min(CUES_PER_SESSION, cues - s * CUES_PER_SESSION))),
);
const plainTexts = () => transcripts.flatMap((c) => c.flatMap(plainCues).map((p) => p.text).filter((t) => t !== ''));
const texts = plainTexts();
const pages = transcripts.flatMap((c) =>
  Array.from({ length: Math.ceil(c.length / PAGE) }, (_, p) => c.slice(p * PAGE, (p + 1) * PAGE).flatMap(plainCues).map((x) => x.text).join(' ')),
);
/** Rows [rowid, text] in statements of CHUNK (JSON, as the import sends them). */
const chunks = (list) => Array.from({ length: Math.ceil(list.length / CHUNK) }, (_, i) => JSON.stringify(list.slice(i * CHUNK, (i + 1) * CHUNK).map((t, j) => [i * CHUNK + j + 1, t])));

const timed = async (fn) => {
  const started = performance.now();
  await fn();
  return performance.now() - started;
};
const report = (name, ms) => process.stdout.write(`${name.padEnd(80)} ${median(ms).toFixed(0).padStart(6)} ms (${Math.min(...ms).toFixed(0)}-${Math.max(...ms).toFixed(0)})\n`);

async function measure(name, open, table, insert) {
  report(
    name,
    await repeat(async () => {
      const store = await open();
      try {
        await store.database.migrate();
        await store.database.write(null, async (tx) => {
          for (const statement of table) await tx.run(statement);
        });
        return await timed(() => store.database.write(null, (tx) => insert(tx)));
      } finally {
        await store.database.close();
      }
    }),
  );
}

process.stdout.write(`${texts.length.toLocaleString('en-US')} plain texts of ${cues.toLocaleString('en-US')} cues, ${pages.length} pages of ${PAGE}; median of ${rounds} (range)\n`);
/** What `measureOnce` returns (milliseconds), `rounds` times, one after another. */
async function repeat(measureOnce) {
  const ms = [];
  for (let round = 0; round < rounds; round++) ms.push(await measureOnce());
  return ms;
}
report('JavaScript: the plain texts of every cue (plainCues)', await repeat(() => timed(async () => plainTexts())));
report('JavaScript: the shipped entries (transcriptEntries)', await repeat(() => timed(async () => transcripts.map(transcriptEntries))));

const bySession = new Map(transcripts.map((c, s) => [`session-${s}`, transcriptEntries(c)]));
const sqliteRows = (table) => (tx, list) => chunks(list).reduce((done, rows) => done.then(() => tx.run(`INSERT INTO ${table} (rowid, text) SELECT value ->> 0, value ->> 1 FROM json_each(@rows)`, { rows })), Promise.resolve());
const work = mkdtempSync(join(tmpdir(), 'results-api-index-floor-'));
const clock = { now: () => Date.now() };
try {
  let n = 0;
  const sqlite = () => openStore(`sqlite:${join(work, `floor-${n++}.db`)}`, { clock, announce: async () => {} });
  await measure('SQLite: as shipped (search_entries, FTS5 by trigger)', sqlite, [], (tx) => writeSearchEntries(tx, 'test', 'transcript', bySession));
  await measure('SQLite: search_entries rows alone (triggers dropped)', sqlite, ['DROP TRIGGER search_entries_indexed'], (tx) => writeSearchEntries(tx, 'test', 'transcript', bySession));
  await measure('SQLite: contentless FTS5, a row per cue (contentless_delete)', sqlite, [`CREATE VIRTUAL TABLE floor USING fts5(text, content = '', contentless_delete = 1, ${TOKENIZE})`], (tx) => sqliteRows('floor')(tx, texts));
  await measure('SQLite: FTS5 a row per cue, nothing but the terms (no sizes, detail=none, no stemming)', sqlite, ["CREATE VIRTUAL TABLE floor USING fts5(text, content = '', columnsize = 0, detail = none)"], (tx) => sqliteRows('floor')(tx, texts));
  await measure('SQLite: contentless FTS5, a row per page of 200 cues', sqlite, [`CREATE VIRTUAL TABLE floor USING fts5(text, content = '', contentless_delete = 1, ${TOKENIZE})`], (tx) => sqliteRows('floor')(tx, pages));

  const pgUrl = process.env.DATABASE_URL;
  if (pgUrl) {
    const schemas = [];
    const postgres = () => {
      const schema = `bench_${randomBytes(4).toString('hex')}_floor`;
      schemas.push(schema);
      return openStore(pgUrl, { clock, announce: async () => {}, postgres: { schema } });
    };
    const tsvectors = () => `SELECT CAST(value ->> 0 AS BIGINT), to_tsvector('english', value ->> 1) FROM jsonb_array_elements(CAST(@rows AS jsonb)) AS r (value)`;
    const pgRows = (tx, list, sql) => chunks(list).reduce((done, rows) => done.then(() => tx.run(sql, { rows })), Promise.resolve());
    const documents = ['CREATE TABLE floor (id BIGINT PRIMARY KEY, document tsvector NOT NULL)', 'CREATE INDEX floor_document ON floor USING GIN (document)'];
    try {
      await measure('PostgreSQL: as shipped (search_entries, generated tsvector, GIN)', postgres, [], (tx) => writeSearchEntries(tx, 'test', 'transcript', bySession));
      await measure('PostgreSQL: a tsvector per cue under GIN, no text', postgres, documents, (tx) => pgRows(tx, texts, `INSERT INTO floor (id, document) ${tsvectors()}`));
      await measure('PostgreSQL: a tsvector per page of 200 cues under GIN, no text', postgres, documents, (tx) => pgRows(tx, pages, `INSERT INTO floor (id, document) ${tsvectors()}`));
      await measure("PostgreSQL: to_tsvector('english') of every cue alone, nothing stored", postgres, [], (tx) =>
        pgRows(tx, texts, `SELECT sum(length(to_tsvector('english', value ->> 1))) FROM jsonb_array_elements(CAST(@rows AS jsonb)) AS r (value)`),
      );
    } finally {
      await dropPostgresSchemas(pgUrl, schemas);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
