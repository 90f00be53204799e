import { createHash } from 'node:crypto';
import type { Clock } from '../clock.js';
import { BadTranscriptError, parseWebVtt, type TranscriptCue } from './webvtt.js';
import { audit } from './audit-log.js';
import { SessionEventWriter } from './webhook-events.js';
import { conflict } from './conflicts.js';
import { transcriptEntries, writeSearchEntries } from './search.js';
import { jsonRows, type Database, type Transaction } from './database.js';
import type { Actor, ImportResult } from './store.js';

/**
 * One session's transcript as imported: WebVTT text, checked by the caller (checkWebVtt in
 * src/store/webvtt.ts); its cues are read from it here, once, as it is stored.
 */
export interface TranscriptInput {
  sessionId: string;
  vtt: string;
}

/** A stored transcript and the test its session belongs to (what visibility is decided on). */
export interface StoredTranscript {
  testId: string;
  vtt: string;
}

export type TranscriptSource = Iterable<TranscriptInput> | AsyncIterable<TranscriptInput>;

/** A stretch of a transcript's cues, in file order, and how many it has in all. */
export interface CueRange {
  cueCount: number;
  cues: TranscriptCue[];
}

/**
 * Cues are stored in pages of this many, each a JSON array of [startMs, endMs, text]: a
 * reader of a few hundred cues reads a few rows of ~20 KB, however long the transcript, and
 * an import of hundreds of thousands of cues writes a thousand-odd rows, not a row each.
 */
const CUES_PER_PAGE = 200;

/** A cue as stored in a page: [startMs, endMs, text]. */
type StoredCue = [number, number, string];

/**
 * Transcripts written per round of set-wise statements, and the text (characters) after which
 * a round ends sooner: bounds what one round holds in memory.
 */
const IMPORT_CHUNK = 500;
const IMPORT_CHUNK_BYTES = 16 * 1024 * 1024;

/** The most cues one read returns (see readCues). */
export const MAX_CUES_READ = 1000;

/** Thrown inside the transaction to roll it back when the import would change nothing. */
class NothingChanged extends Error {}

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** The WebVTT transcript of each session that has one; at most one per session, replaced whole. */
export class TranscriptRepository {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /**
   * Stores the transcripts of sessions of `testId` in one transaction: all or none. Every
   * session must already belong to the test. A transcript identical to the stored one counts
   * as unchanged; when nothing at all changes, nothing is written, audited or announced, so
   * importing the same files again is a no-op.
   */
  async importTranscripts(testId: string, transcripts: TranscriptSource, by: Actor): Promise<ImportResult> {
    if (!(await this.db.one('SELECT 1 AS found FROM tests WHERE id = @testId', { testId }))) throw conflict.noTest(testId);
    const result: ImportResult = { inserted: 0, updated: 0, unchanged: 0 };
    try {
      await this.db.write({ topic: 'sessions', testId }, async (tx) => {
        // Locking the test serializes imports into it, as the session import does.
        if (!(await tx.one('SELECT 1 AS found FROM tests WHERE id = @testId FOR UPDATE', { testId }))) throw conflict.noTest(testId);
        const write = { tx, testId, importedAt: this.clock.now(), events: await SessionEventWriter.start(tx, this.clock, 'transcript.ready', testId) };
        let chunk: TranscriptInput[] = [];
        let bytes = 0;
        const ids = new Set<string>();
        for await (const transcript of transcripts) {
          // A session listed twice goes into the next chunk: each chunk's upserts touch a row once.
          if (chunk.length === IMPORT_CHUNK || bytes >= IMPORT_CHUNK_BYTES || ids.has(transcript.sessionId)) {
            await writeTranscriptChunk(write, chunk, result);
            chunk = [];
            bytes = 0;
            ids.clear();
          }
          chunk.push(transcript);
          bytes += transcript.vtt.length;
          ids.add(transcript.sessionId);
        }
        await writeTranscriptChunk(write, chunk, result);
        if (result.inserted === 0 && result.updated === 0) throw new NothingChanged();
        await audit(tx, this.clock, by, 'transcripts.import', testId, { ...result });
      });
    } catch (error) {
      if (!(error instanceof NothingChanged)) throw error;
    }
    return result;
  }

  /** A session's transcript with its session's test, or null when the session has none (or does not exist). */
  async findTranscript(sessionId: string): Promise<StoredTranscript | null> {
    const r = await this.db.one<{ test_id: string; vtt: string }>(
      'SELECT s.test_id, t.vtt FROM transcripts t JOIN sessions s ON s.session_id = t.session_id WHERE t.session_id = @sessionId',
      { sessionId },
    );
    return r ? { testId: r.test_id, vtt: r.vtt } : null;
  }

  /** How many cues a session's transcript has, or null when the session has none. Reads no text. */
  async cueCount(sessionId: string): Promise<number | null> {
    // transcripts by its key alone (its index covers it): the row, and its text, are not read.
    const r = await this.db.one<{ cue_count: number | null }>(
      'SELECT c.cue_count FROM transcripts t LEFT JOIN transcript_cues c ON c.session_id = t.session_id WHERE t.session_id = @sessionId',
      { sessionId },
    );
    // No count: cues not stored yet (until storeMissingCues has run), or the transcript was
    // imported by a release before migration 10 during a rolling upgrade (until imported again).
    return r ? (r.cue_count ?? 0) : null;
  }

  /**
   * Up to `limit` (at most MAX_CUES_READ) of a transcript's cues from the `offset`-th on, in
   * file order, as stored at import: a few indexed rows, whatever the transcript's length.
   * Null when the session has no transcript.
   */
  async readCues(sessionId: string, offset: number, limit: number): Promise<CueRange | null> {
    const cueCount = await this.cueCount(sessionId);
    if (cueCount === null) return null;
    const end = Math.min(cueCount, offset + Math.min(limit, MAX_CUES_READ));
    if (end <= offset) return { cueCount, cues: [] };
    const first = Math.floor(offset / CUES_PER_PAGE);
    const rows = await this.db.all<{ cues: string }>(
      'SELECT cues FROM transcript_cue_pages WHERE session_id = @sessionId AND page BETWEEN @first AND @last ORDER BY page',
      { sessionId, first, last: Math.floor((end - 1) / CUES_PER_PAGE) },
    );
    const cues = rows.flatMap((r) => (JSON.parse(r.cues) as StoredCue[]).map(([startMs, endMs, text]) => ({ startMs, endMs, text })));
    const from = offset - first * CUES_PER_PAGE;
    return { cueCount, cues: cues.slice(from, from + end - offset) };
  }

  /**
   * Every cue of a session's transcript in file order, as stored at import (its pages, read in
   * one query; at most MAX_TRANSCRIPT_BYTES of text). Null when the session has no stored cues
   * (no transcript, or one whose cues are not stored yet).
   */
  async allCues(sessionId: string): Promise<TranscriptCue[] | null> {
    const rows = await this.db.all<{ cues: string }>('SELECT cues FROM transcript_cue_pages WHERE session_id = @sessionId ORDER BY page', { sessionId });
    if (rows.length === 0) return (await this.cueCount(sessionId)) === 0 ? [] : null;
    return rows.flatMap((r) => (JSON.parse(r.cues) as StoredCue[]).map(([startMs, endMs, text]) => ({ startMs, endMs, text })));
  }

  /**
   * Stores the cues of transcripts imported before cues were stored at import (marked by
   * migration 10 with a NULL cue_count), one transcript per transaction, so that no request ever has to parse one. Run
   * whenever the store is opened (a no-op, one indexed look, once all are done); processes
   * starting together each take the next transcript still without cues. A stored transcript
   * this parser refuses (it is stricter than the one that checked it: "-->" inside a cue's
   * text, an unknown cue setting) keeps its text for the API and gets no cues; its session is
   * listed in `unreadable`.
   */
  async storeMissingCues(): Promise<{ stored: number; unreadable: string[] }> {
    const done = { stored: 0, unreadable: [] as string[] };
    for (;;) {
      const next = await this.db.one<{ session_id: string }>('SELECT session_id FROM transcript_cues WHERE cue_count IS NULL ORDER BY session_id LIMIT 1');
      if (!next) return done;
      const sessionId = next.session_id;
      // Cues change nothing any cache holds: nothing to announce.
      await this.db.write(null, async (tx) => {
        const row = await tx.one<{ vtt: string }>(
          `SELECT t.vtt FROM transcript_cues c JOIN transcripts t ON t.session_id = c.session_id
            WHERE c.session_id = @sessionId AND c.cue_count IS NULL FOR UPDATE OF c`,
          { sessionId },
        );
        if (!row) return; // another process stored them meanwhile
        let cues: TranscriptCue[] = [];
        try {
          cues = parseWebVtt(row.vtt);
        } catch (error) {
          if (!(error instanceof BadTranscriptError)) throw error;
          done.unreadable.push(sessionId);
        }
        await writeCues(tx, new Map([[sessionId, cues]]));
        done.stored++;
      });
    }
  }
}

/**
 * Writes a chunk of transcripts (each session once) set-wise: one read of their sessions and
 * stored hashes, then each table's rows in a statement or a few. Checked in file order, so
 * the first bad transcript is the one reported.
 */
async function writeTranscriptChunk(
  write: { tx: Transaction; testId: string; importedAt: number; events: SessionEventWriter | null },
  chunk: readonly TranscriptInput[],
  result: ImportResult,
): Promise<void> {
  if (chunk.length === 0) return;
  const { tx, testId, importedAt } = write;
  const known = await tx.all<{ session_id: string; test_id: string; sha256: string | null }>(
    `SELECT s.session_id, s.test_id, t.sha256 FROM sessions s LEFT JOIN transcripts t ON t.session_id = s.session_id
      WHERE s.session_id IN (SELECT value ->> 0 FROM ${jsonRows(tx.dialect, 'rows')})`,
    { rows: JSON.stringify(chunk.map((t) => [t.sessionId])) },
  );
  const stored = new Map(known.map((r) => [r.session_id, r]));
  const rows: string[][] = [];
  const cues = new Map<string, TranscriptCue[]>();
  for (const { sessionId, vtt } of chunk) {
    const row = stored.get(sessionId);
    if (!row || row.test_id !== testId) throw conflict.noSessionInTest(sessionId, testId);
    const hash = sha256(vtt);
    if (row.sha256 === hash) {
      result.unchanged++;
      continue;
    }
    // Read here, once: no reader of the cues ever parses the text (a BadTranscriptError rolls the import back).
    cues.set(sessionId, parseWebVtt(vtt));
    rows.push([sessionId, vtt, hash]);
    if (row.sha256 === null) result.inserted++;
    else result.updated++;
  }
  if (rows.length === 0) return;
  await tx.run(
    `INSERT INTO transcripts (session_id, vtt, sha256, imported_at)
     SELECT value ->> 0, value ->> 1, value ->> 2, CAST(@importedAt AS BIGINT) FROM ${jsonRows(tx.dialect, 'rows')} WHERE true
     ON CONFLICT (session_id) DO UPDATE SET vtt = excluded.vtt, sha256 = excluded.sha256, imported_at = excluded.imported_at`,
    { importedAt, rows: JSON.stringify(rows) },
  );
  await writeCues(tx, cues);
  await write.events?.record([...cues.keys()]);
  await writeSearchEntries(tx, testId, 'transcript', new Map([...cues].map(([sessionId, c]) => [sessionId, transcriptEntries(c)])));
}

/** Replaces the stored cues, and their count, of each transcript in `bySession`: a few statements for a chunk of transcripts. */
async function writeCues(tx: Transaction, bySession: ReadonlyMap<string, readonly TranscriptCue[]>): Promise<void> {
  if (bySession.size === 0) return;
  const sessions = [...bySession].map(([sessionId, cues]) => [sessionId, cues.length]);
  await tx.run(`DELETE FROM transcript_cue_pages WHERE session_id IN (SELECT value ->> 0 FROM ${jsonRows(tx.dialect, 'rows')})`, {
    rows: JSON.stringify(sessions),
  });
  const pages: unknown[][] = [];
  for (const [sessionId, cues] of bySession) {
    for (let page = 0; page * CUES_PER_PAGE < cues.length; page++) {
      const stored = cues.slice(page * CUES_PER_PAGE, (page + 1) * CUES_PER_PAGE).map((c): StoredCue => [c.startMs, c.endMs, c.text]);
      pages.push([sessionId, page, JSON.stringify(stored)]);
    }
  }
  if (pages.length > 0) {
    await tx.run(
      `INSERT INTO transcript_cue_pages (session_id, page, cues)
       SELECT value ->> 0, CAST(value ->> 1 AS INTEGER), value ->> 2 FROM ${jsonRows(tx.dialect, 'rows')}`,
      { rows: JSON.stringify(pages) },
    );
  }
  await tx.run(
    `INSERT INTO transcript_cues (session_id, cue_count)
     SELECT value ->> 0, CAST(value ->> 1 AS INTEGER) FROM ${jsonRows(tx.dialect, 'rows')} WHERE true
     ON CONFLICT (session_id) DO UPDATE SET cue_count = excluded.cue_count`,
    { rows: JSON.stringify(sessions) },
  );
}
