import { plainCues } from './cue-text.js';
import type { TranscriptCue } from './webvtt.js';
import { jsonRows, type Database, type Transaction } from './database.js';
import { POSTGRES_SEARCH, postgresMatch, postgresTestQuery } from './postgres/search-sql.js';
import { SQLITE_SEARCH, sqliteMatch } from './sqlite/search-sql.js';

/** What a search finds: a stretch of a transcript, or an answer to a task. */
export type SearchKind = 'transcript' | 'answer';

/** One searchable text of a session. */
export interface SearchEntry {
  kind: SearchKind;
  taskId: string | null;
  startMs: number | null;
  endMs: number | null;
  speaker: string | null;
  text: string;
}

export interface SearchHit extends Omit<SearchEntry, 'text'> {
  sessionId: string;
  testId: string;
  /** The matching text around the words found, each found word between `**`. */
  snippet: string;
}

/**
 * The most matching entries a search ranks: the newest ones (the last imported), all of them
 * when fewer match. A word found in more places than this is not narrowed by ranking anyway,
 * and ranking every match of a word found in most cues would take a second; past it, a caller
 * narrows the query or names a test. Covers every page REST can ask for (offset 10,000).
 */
export const SEARCH_RANK_WINDOW = 10_100;

/**
 * Hits come in two tiers: the newest this-many matching entries, best first, then the older ones
 * of the window, best first. A page inside the first tier (every page a person reads) then ranks
 * only those: BM25 costs several microseconds a row, so ranking 10,100 rows for the first page
 * of a common word took 50-80 ms. Pages stay consistent: each is a slice of the same order.
 */
export const SEARCH_RANK_FIRST = 1_000;

/** The entries a page [offset, offset + limit) needs ranked: the first tier, or the whole window. */
export const rankWindow = (offset: number, limit: number): number => (offset + limit <= SEARCH_RANK_FIRST ? SEARCH_RANK_FIRST : SEARCH_RANK_WINDOW);

/** Rows per INSERT (one JSON parameter): bounds the statement's size, not its parameter count. */
const WRITE_CHUNK = 2_000;

/** The entries of a transcript: each cue's text per speaker, markup removed (empty ones left out). */
export const transcriptEntries = (cues: readonly TranscriptCue[]): SearchEntry[] =>
  cues.flatMap(plainCues).flatMap((c) => (c.text === '' ? [] : [{ kind: 'transcript' as const, taskId: null, startMs: c.startMs, endMs: c.endMs, speaker: c.speaker, text: c.text }]));

interface DetailsDocument {
  tasks?: { taskId: string; startTimeMs: number; endTimeMs: number; answer: { text?: unknown } | null }[];
}

/** The entries of a session's details: the text of each written or verbal answer. */
export function answerEntries(document: object): SearchEntry[] {
  return ((document as DetailsDocument).tasks ?? []).flatMap((t) =>
    typeof t.answer?.text === 'string' && t.answer.text.trim() !== ''
      ? [{ kind: 'answer' as const, taskId: t.taskId, startMs: t.startTimeMs, endMs: t.endTimeMs, speaker: null, text: t.answer.text }]
      : [],
  );
}

/**
 * Replaces the entries of one kind of each session in `bySession` (sessions of `testId`),
 * inside the writer's transaction (the transcript or session import), so the index never
 * disagrees with what was imported. Set-wise: a statement per few thousand sessions or rows,
 * however many sessions an import writes.
 */
export async function writeSearchEntries(
  tx: Transaction,
  testId: string,
  kind: SearchKind,
  bySession: ReadonlyMap<string, readonly SearchEntry[]>,
): Promise<void> {
  const sessionIds = [...bySession.keys()].map((sessionId) => [sessionId]);
  for (let at = 0; at < sessionIds.length; at += WRITE_CHUNK) {
    await tx.run(`DELETE FROM search_entries WHERE kind = @kind AND session_id IN (SELECT value ->> 0 FROM ${jsonRows(tx.dialect, 'rows')})`, {
      kind,
      rows: JSON.stringify(sessionIds.slice(at, at + WRITE_CHUNK)),
    });
  }
  let rows: unknown[][] = [];
  const insert = async () => {
    await tx.run(
      `INSERT INTO search_entries (session_id, test_id, kind, task_id, start_ms, end_ms, speaker, text)
       SELECT value ->> 0, @testId, @kind, value ->> 1, CAST(value ->> 2 AS BIGINT), CAST(value ->> 3 AS BIGINT), value ->> 4, value ->> 5
         FROM ${jsonRows(tx.dialect, 'rows')}`,
      { testId, kind, rows: JSON.stringify(rows) },
    );
    rows = [];
  };
  for (const [sessionId, entries] of bySession) {
    for (const e of entries) {
      rows.push([sessionId, e.taskId, e.startMs, e.endMs, e.speaker, e.text]);
      if (rows.length === WRITE_CHUNK) await insert();
    }
  }
  if (rows.length > 0) await insert();
}

/**
 * Full-text search over transcripts and answers. The index is written by the imports
 * (writeSearchEntries); the query is each engine's own (FTS5, tsvector), given only the
 * words of the query, and the tests and kinds of text the caller may see, which ResourceAccess decided.
 */
export class SearchRepository {
  constructor(private readonly db: Database) {}

  /** The best hits among the texts of `kinds` in `testIds`, ranked, from `offset` on: at most `limit`. */
  async search(words: readonly string[], within: { testIds: readonly string[]; kinds: readonly SearchKind[] }, offset: number, limit: number): Promise<SearchHit[]> {
    if (within.testIds.length === 0 || within.kinds.length === 0 || words.length === 0) return [];
    const sqlite = this.db.dialect === 'sqlite';
    // Within one test, the index intersects the words with the test (migration 19).
    const oneTest = within.testIds.length === 1 ? within.testIds[0] : undefined;
    const rows = await this.db.all<Record<string, unknown>>(sqlite ? SQLITE_SEARCH : POSTGRES_SEARCH, {
      match: sqlite ? sqliteMatch(words, oneTest) : postgresMatch(words),
      ...(sqlite ? {} : { test: oneTest === undefined ? null : postgresTestQuery(oneTest) }),
      tests: JSON.stringify(within.testIds),
      kinds: JSON.stringify(within.kinds),
      window: rankWindow(offset, limit),
      first: SEARCH_RANK_FIRST,
      limit,
      offset,
    });
    return rows.map((r) => ({
      sessionId: r.session_id as string,
      testId: r.test_id as string,
      kind: r.kind as SearchKind,
      taskId: (r.task_id as string | null) ?? null,
      startMs: r.start_ms === null ? null : Number(r.start_ms),
      endMs: r.end_ms === null ? null : Number(r.end_ms),
      speaker: (r.speaker as string | null) ?? null,
      snippet: r.snippet as string,
    }));
  }

  /**
   * Indexes the sessions imported before search existed (listed by migration 16), one session
   * per transaction, so that search finds them too. Run whenever the store is opened (one
   * indexed look once all are done); processes starting together each take the next one.
   */
  async indexBacklog(): Promise<number> {
    let indexed = 0;
    for (;;) {
      const next = await this.db.one<{ session_id: string }>('SELECT session_id FROM search_backlog ORDER BY session_id LIMIT 1');
      if (!next) return indexed;
      const sessionId = next.session_id;
      // The index changes nothing any cache holds: nothing to announce.
      await this.db.write(null, async (tx) => {
        if ((await tx.run('DELETE FROM search_backlog WHERE session_id = @sessionId', { sessionId })) === 0) return;
        const session = await tx.one<{ test_id: string }>('SELECT test_id FROM sessions WHERE session_id = @sessionId', { sessionId });
        if (!session) return;
        const details = await tx.one<{ details: string }>('SELECT details FROM session_details WHERE session_id = @sessionId', { sessionId });
        if (details) await writeSearchEntries(tx, session.test_id, 'answer', new Map([[sessionId, answerEntries(JSON.parse(details.details) as object)]]));
        const pages = await tx.all<{ cues: string }>('SELECT cues FROM transcript_cue_pages WHERE session_id = @sessionId ORDER BY page', { sessionId });
        const cues = pages.flatMap((p) => (JSON.parse(p.cues) as [number, number, string][]).map(([startMs, endMs, text]) => ({ startMs, endMs, text })));
        await writeSearchEntries(tx, session.test_id, 'transcript', new Map([[sessionId, transcriptEntries(cues)]]));
        indexed++;
      });
    }
  }
}
