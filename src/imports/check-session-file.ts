import { sqliteDriver } from '../store/sqlite/driver.js';
import type { TestPlan } from '../store/store.js';
import { duplicateProblem, type BadLine, type CheckedRecord, type SessionFileFormat } from './parse-session-file.js';
import { SessionIdFilter } from './session-id-filter.js';
import { forEachSessionRecord, type OnBytesRead } from './session-file-stream.js';

/**
 * Finds every bad line of a session file, however big, a sessionId repeated from an earlier
 * line included, in bounded memory.
 *
 * Repeats are found without keeping every id: a Bloom filter (SessionIdFilter) tells, line by
 * line, "this id is certainly new" or "maybe seen before". A file without repeats (nearly
 * every file) is done in the one read its records were fed from. Any "maybe" leads to a second
 * read that keeps the lines of the possibly repeated ids in a private temporary SQLite
 * database on disk, where one sorted query tells which truly repeat and where each first
 * appeared.
 */

export interface SessionFileReport {
  /** Good sessions in the file. */
  sessions: number;
  /** Every bad line: with problems of its own, or repeating an earlier line's sessionId, or both. */
  badLines: number;
  /** The first `limit` bad lines, in line order, each with all of its problems. */
  firstBadLines: BadLine[];
}

/** A session file with bad lines: nothing of it may be imported. */
export class BadSessionFileError extends Error {
  override name = 'BadSessionFileError';
  constructor(readonly report: SessionFileReport) {
    super(`${report.badLines} bad line${report.badLines === 1 ? '' : 's'}`);
  }
}

export interface CheckOptions {
  /** How many bad lines to describe (all are counted). */
  limit: number;
  /** The file's size, to size the filter. */
  fileBytes: number;
  /** The test's plan, which each record's details are checked against. */
  plan?: TestPlan | null;
}

/** Takes a file's records in file order (`note`), then tells what was wrong (`report`). */
export class SessionFileChecker {
  private readonly seen: SessionIdFilter;
  private readonly maybeRepeated = new SessionIdFilter(1 << 22);
  private anyMaybeRepeated = false;
  private sessions = 0;
  private badLines = 0;
  private readonly firstBadLines: BadLine[] = [];

  constructor(
    private readonly path: string,
    private readonly format: SessionFileFormat,
    private readonly options: CheckOptions,
  ) {
    this.seen = SessionIdFilter.forFile(options.fileBytes);
  }

  /** Whether no line so far has problems of its own (repeats are only known in `report`). */
  get clean(): boolean {
    return this.badLines === 0;
  }

  note(record: CheckedRecord): void {
    if (record.problems) {
      this.badLines++;
      if (this.firstBadLines.length < this.options.limit) {
        this.firstBadLines.push({ line: record.line, message: record.problems.join('; ') });
      }
    } else {
      this.sessions++;
    }
    if (record.sessionId !== undefined && this.seen.add(record.sessionId)) {
      this.maybeRepeated.add(record.sessionId);
      this.anyMaybeRepeated = true;
    }
  }

  /** The verdict, once every record has been noted; reads the file again only if an id may repeat. */
  async report(onBytesRead?: OnBytesRead): Promise<SessionFileReport> {
    const { sessions, badLines, firstBadLines } = this;
    if (!this.anyMaybeRepeated) return { sessions, badLines, firstBadLines };

    const repeats = await findRepeats(this.path, this.format, this.maybeRepeated, this.options, onBytesRead);
    // A repeating line with problems of its own is one bad line, its messages joined. Such a line,
    // if among the first `limit` of all bad lines, is among the first `limit` of its own kind too.
    const messages = new Map(firstBadLines.map((b) => [b.line, b.message]));
    for (const r of repeats.first) {
      const repeat = duplicateProblem(r.sessionId, r.firstLine);
      const own = messages.get(r.line);
      messages.set(r.line, own === undefined ? repeat : `${own}; ${repeat}`);
    }
    const merged = [...messages].map(([line, message]) => ({ line, message })).sort((a, b) => a.line - b.line);
    const newlyBad = repeats.count - repeats.alsoBad;
    return { sessions: sessions - newlyBad, badLines: badLines + newlyBad, firstBadLines: merged.slice(0, this.options.limit) };
  }
}

/** Reads the whole file and reports its bad lines. */
export async function checkSessionFile(
  path: string,
  format: SessionFileFormat,
  options: CheckOptions & { onBytesRead?: OnBytesRead },
): Promise<SessionFileReport> {
  const checker = new SessionFileChecker(path, format, options);
  await forEachSessionRecord(path, format, (record) => checker.note(record), options.onBytesRead, options.plan ?? null);
  return checker.report(options.onBytesRead);
}

interface Repeats {
  /** The first `limit` lines repeating an earlier line's sessionId, in line order. */
  first: { line: number; sessionId: string; firstLine: number }[];
  /** How many lines repeat an earlier sessionId, */
  count: number;
  /** and how many of those have problems of their own. */
  alsoBad: number;
}

/** Reads the file again, keeping the lines whose sessionId may repeat, and finds the true repeats by sorting them. */
async function findRepeats(
  path: string,
  format: SessionFileFormat,
  candidates: SessionIdFilter,
  { limit, plan }: CheckOptions,
  onBytesRead: OnBytesRead | undefined,
): Promise<Repeats> {
  const Database = sqliteDriver();
  // '' names a private temporary database: on disk (not in memory), deleted when closed.
  const db = new Database('');
  try {
    db.exec('CREATE TABLE lines (session_id TEXT NOT NULL, line INTEGER NOT NULL, bad INTEGER NOT NULL)');
    const insert = db.prepare('INSERT INTO lines (session_id, line, bad) VALUES (?, ?, ?)');
    const keep = db.transaction((rows: [string, number, number][]) => {
      for (const row of rows) insert.run(row);
    });
    let pending: [string, number, number][] = [];
    await forEachSessionRecord(
      path,
      format,
      (record) => {
        if (record.sessionId === undefined || !candidates.has(record.sessionId)) return;
        pending.push([record.sessionId, record.line, record.problems ? 1 : 0]);
        if (pending.length === 10_000) {
          keep(pending);
          pending = [];
        }
      },
      onBytesRead,
      plan ?? null,
    );
    keep(pending);
    db.exec('CREATE INDEX lines_by_session ON lines (session_id, line)');
    const repeats = `SELECT line, session_id, first_line, bad FROM (
                       SELECT line, session_id, bad, MIN(line) OVER (PARTITION BY session_id) AS first_line FROM lines)
                      WHERE line > first_line`;
    const first = db.prepare(`${repeats} ORDER BY line LIMIT ?`).all(limit) as { line: number; session_id: string; first_line: number }[];
    const counts = db.prepare(`SELECT COUNT(*) AS count, COALESCE(SUM(bad), 0) AS also_bad FROM (${repeats})`).get() as {
      count: number;
      also_bad: number;
    };
    return {
      first: first.map((r) => ({ line: r.line, sessionId: r.session_id, firstLine: r.first_line })),
      count: counts.count,
      alsoBad: counts.also_bad,
    };
  } finally {
    db.close();
  }
}
