import { checkSessionDetails, storedDetails } from '../details/session-details.js';
import type { SessionInput, TestPlan } from '../store/store.js';
import { isUuid, uuidKey } from '../store/uuid.js';
import { CsvRecordSplitter, type CsvRecord } from './csv-records.js';
import { nestsTooDeep, tooDeepProblem } from './json-depth.js';

export { readCsv } from './csv-records.js';

/**
 * Reads a file of sessions to import (NDJSON or CSV) and validates every line, so that an
 * import is all or nothing: either every session is good, or every bad line is reported by
 * its line number and nothing is written. `SessionRecordReader` does it for text arriving in
 * pieces (a file of any size, streamed); `parseSessionFile` for a text held whole.
 */

export type SessionFileFormat = 'ndjson' | 'csv';

export const SESSION_FILE_FORMATS: readonly SessionFileFormat[] = ['ndjson', 'csv'];

/** `details` (what the session contains, as nested JSON; in CSV, a JSON text) is checked against the test's plan. */
export const SESSION_FIELDS = ['sessionId', 'audienceId', 'status', 'startTime', 'finishTime', 'details'] as const;
type SessionField = (typeof SESSION_FIELDS)[number];
const REQUIRED_FIELDS: readonly SessionField[] = ['sessionId', 'status', 'startTime'];
const FIELD_NAMES: ReadonlySet<string> = new Set(SESSION_FIELDS);

/** Statuses are short uppercase identifiers such as COMPLETE or IN_PROGRESS. */
export const STATUS_PATTERN = /^[A-Z][A-Z0-9_]{0,31}$/;

/** Past this, an NDJSON line is refused unread: no session comes near it. */
export const MAX_LINE_CHARS = 1024 * 1024;

export interface BadLine {
  /** 1-based line of the file; for a CSV record spanning lines, the line it starts on. */
  line: number;
  message: string;
}

export type ParsedSessionFile = { ok: true; sessions: SessionInput[] } | { ok: false; errors: BadLine[] };

/** One record of a session file, checked on its own (duplicates are the caller's concern). */
export interface CheckedRecord {
  /** 1-based line the record starts on. */
  line: number;
  /** The session, when the record is good. */
  session: SessionInput | undefined;
  /** What is wrong with the record, when it is bad. */
  problems: string[] | undefined;
  /** The record's sessionId (stored form) whenever it is a UUID, good record or bad: duplicates are found by it. */
  sessionId: string | undefined;
}

/** The format a file name implies: `.ndjson`/`.jsonl` or `.csv`; undefined for anything else. */
export function sessionFileFormat(fileName: string): SessionFileFormat | undefined {
  const name = fileName.toLowerCase();
  if (name.endsWith('.ndjson') || name.endsWith('.jsonl')) return 'ndjson';
  if (name.endsWith('.csv')) return 'csv';
  return undefined;
}

/** Checks a whole text: every bad line (duplicates included) by line number, or every session. */
export function parseSessionFile(text: string, format: SessionFileFormat, plan: TestPlan | null = null): ParsedSessionFile {
  const errors: BadLine[] = [];
  const sessions: SessionInput[] = [];
  const firstLineOf = new Map<string, number>();
  const reader = new SessionRecordReader(format, (record) => {
    let problems = record.problems;
    if (record.sessionId !== undefined) {
      const first = firstLineOf.get(record.sessionId);
      if (first !== undefined) problems = [...(problems ?? []), duplicateProblem(record.sessionId, first)];
      else firstLineOf.set(record.sessionId, record.line);
    }
    if (problems) errors.push({ line: record.line, message: problems.join('; ') });
    else if (record.session) sessions.push(record.session);
  }, plan);
  reader.write(text);
  reader.end();
  errors.sort((a, b) => a.line - b.line);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, sessions };
}

/** What a repeated sessionId is reported as, on the line that repeats it. */
export function duplicateProblem(sessionId: string, firstLine: number): string {
  return `sessionId ${sessionId} also appears on line ${firstLine}`;
}

// --- reading records from text in pieces ---------------------------------------------------

/**
 * Turns the text of a session file, fed in pieces of any size, into checked records, in file
 * order, calling `onRecord` for each. Memory is bounded by the longest record.
 */
export class SessionRecordReader {
  private started = false;
  private sawContent = false;
  private readonly splitter: NdjsonLineSplitter | CsvRecordSplitter;
  /** CSV: the field each column holds, once the header has been read. */
  private columns: SessionField[] | undefined;
  private headerRefused = false;

  constructor(
    private readonly format: SessionFileFormat,
    private readonly onRecord: (record: CheckedRecord) => void,
    /** The test's plan, which a record's details are checked against. */
    private readonly plan: TestPlan | null = null,
  ) {
    this.splitter =
      format === 'csv'
        ? new CsvRecordSplitter((record) => this.csvRecord(record))
        : new NdjsonLineSplitter((text, line) => this.ndjsonLine(text, line));
  }

  /** Whether the rest of the input no longer matters (a refused CSV header, a runaway record). */
  get done(): boolean {
    return this.headerRefused || this.splitter.done;
  }

  write(text: string): void {
    if (!this.started && text !== '') {
      this.started = true;
      // A UTF-8 byte order mark is what spreadsheet exports start with; it is not data.
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (!this.done) this.splitter.write(text);
  }

  end(): void {
    if (!this.done) this.splitter.end();
    if (!this.sawContent) {
      const expected = this.format === 'csv' ? 'a header row' : 'one JSON object per line';
      this.bad(1, `the file is empty (expected ${expected})`);
    }
  }

  private bad(line: number, problem: string): void {
    this.onRecord({ line, session: undefined, problems: [problem], sessionId: undefined });
  }

  private ndjsonLine(text: string, line: number): void {
    if (isBlank(text)) return;
    this.sawContent = true;
    if (text.length > MAX_LINE_CHARS) {
      this.bad(line, `the line is longer than ${MAX_LINE_CHARS} characters`);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      this.bad(line, `not valid JSON (${(err as Error).message})`);
      return;
    }
    // Before anything walks the value (a message quoting a field would recurse through it).
    if (nestsTooDeep(value)) {
      this.bad(line, tooDeepProblem('the line'));
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.bad(line, `expected a JSON object with ${SESSION_FIELDS.join(', ')}`);
      return;
    }
    for (const key in value) {
      if (!FIELD_NAMES.has(key)) {
        const unknown = Object.keys(value).filter((k) => !FIELD_NAMES.has(k));
        // A line may hold thousands: the first few are named.
        const named = unknown.slice(0, 3).map((k) => shown(k)).join(', ') + (unknown.length > 3 ? ` and ${unknown.length - 3} more` : '');
        this.bad(line, `unknown field${unknown.length > 1 ? 's' : ''} ${named} (expected ${SESSION_FIELDS.join(', ')})`);
        return;
      }
    }
    this.onRecord(withDetails(checkRecord(line, value as RecordValues), (value as RecordValues).details, this.plan));
  }

  private csvRecord(record: CsvRecord): void {
    if (this.headerRefused) return;
    if (!record.error && record.fields.length === 1 && isBlank(record.fields[0]!)) return;
    this.sawContent = true;
    if (record.error && this.splitter.done) {
      // A runaway record: nothing after it can be read.
      this.bad(record.line, record.error);
      return;
    }
    if (!this.columns) {
      this.csvHeader(record);
      return;
    }
    const columns = this.columns;
    if (record.error) {
      this.bad(record.line, record.error);
    } else if (record.fields.length !== columns.length) {
      this.bad(record.line, `expected ${columns.length} fields (${columns.join(',')}), found ${record.fields.length}`);
    } else {
      const values: RecordValues = {};
      for (let i = 0; i < columns.length; i++) values[columns[i]!] = record.fields[i]!.trim();
      this.onRecord(withDetails(checkRecord(record.line, values), values.details, this.plan));
    }
  }

  // Without a readable header no row can be checked, so the header's problems are all there is to say.
  private csvHeader(header: CsvRecord): void {
    this.headerRefused = true;
    if (header.error) {
      this.bad(header.line, `header row: ${header.error}`);
      return;
    }
    const columns: SessionField[] = [];
    const problems: string[] = [];
    for (const name of header.fields.map((f) => f.trim())) {
      const field = SESSION_FIELDS.find((f) => f.toLowerCase() === name.toLowerCase());
      if (!field) problems.push(`unknown column ${shown(name)}`);
      else if (columns.includes(field)) problems.push(`column ${field} appears twice`);
      else columns.push(field);
    }
    for (const field of REQUIRED_FIELDS) {
      if (!columns.includes(field)) problems.push(`column ${field} is missing`);
    }
    if (problems.length > 0) {
      this.bad(header.line, `header row: ${problems.join('; ')} (expected columns ${SESSION_FIELDS.join(', ')})`);
      return;
    }
    this.columns = columns;
    this.headerRefused = false;
  }
}

/**
 * NDJSON lines from text in pieces: split at LF, a CR before the LF dropped. Only the line
 * that straddles two pieces is kept between calls; a runaway line beyond MAX_LINE_CHARS is
 * reported (as one over-long line) without being held.
 */
class NdjsonLineSplitter {
  private pending = '';
  private line = 1;
  /** The current line has grown too long: its text is dropped up to its end. */
  private skipping = false;

  constructor(private readonly onLine: (text: string, line: number) => void) {}

  readonly done = false;

  write(text: string): void {
    const all = this.pending === '' ? text : this.pending + text;
    let start = 0;
    for (;;) {
      const lf = all.indexOf('\n', start);
      if (lf === -1) break;
      if (this.skipping) this.skipping = false;
      else this.onLine(all.slice(start, lf > start && all.charCodeAt(lf - 1) === 13 ? lf - 1 : lf), this.line);
      this.line++;
      start = lf + 1;
    }
    this.pending = this.skipping ? '' : all.slice(start);
    if (this.pending.length > MAX_LINE_CHARS) {
      this.onLine(this.pending, this.line); // reported as too long
      this.pending = '';
      this.skipping = true;
    }
  }

  end(): void {
    if (!this.skipping && this.pending !== '') this.onLine(this.pending, this.line);
    this.pending = '';
  }
}

// --- validation of one record ------------------------------------------------------------

type RecordValues = Partial<Record<SessionField, unknown>>;

function isBlank(text: string): boolean {
  // Most lines start with `{` or a UUID: decided without trimming.
  const c = text.charCodeAt(0);
  if (c > 32 && c < 127) return false;
  return text.trim() === '';
}

function isAbsent(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function withProblem(problems: string[] | undefined, problem: string): string[] {
  if (!problems) return [problem];
  problems.push(problem);
  return problems;
}

/** Marks a present but unusable value (null means absent). */
const INVALID = Symbol('invalid');

function uuidValue(raw: unknown): string | null | typeof INVALID {
  if (isAbsent(raw)) return null;
  if (typeof raw === 'string') {
    const text = raw.trim();
    if (isUuid(text)) return uuidKey(text);
  }
  return INVALID;
}

function timeValue(raw: unknown): number | null | typeof INVALID {
  if (isAbsent(raw)) return null;
  const ms = typeof raw === 'string' ? parseIsoTime(raw.trim()) : undefined;
  return ms === undefined ? INVALID : ms;
}

const uuidProblem = (field: string, raw: unknown) => `${field} must be a UUID (got ${shown(raw)})`;
const timeProblem = (field: string, raw: unknown) =>
  `${field} must be an ISO 8601 time with a timezone, e.g. 2024-11-21T12:23:52.614Z (got ${shown(raw)})`;

/** A UUID already in the stored form (lowercase): nothing to trim or convert. */
const STORED_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const isStoredUuid = (value: unknown): value is string => typeof value === 'string' && value.length === 36 && STORED_UUID.test(value);
/** Absent, null or empty: no value (values with spaces around are left to the full reading). */
const isNothing = (value: unknown): value is undefined | null | '' => value === undefined || value === null || value === '';

/**
 * Checks one record's values. Runs once per line of files with millions of lines, so the
 * common case, every value already in the form the store keeps (what an export writes), is
 * taken without trimming, converting or allocating anything but the session; any other
 * record gets the full reading (`checkRecordFully`), which reports every problem.
 */
function checkRecord(line: number, values: RecordValues): CheckedRecord {
  const { sessionId, audienceId, status, startTime: start, finishTime: finish } = values;
  if (
    isStoredUuid(sessionId) &&
    (isStoredUuid(audienceId) || isNothing(audienceId)) &&
    typeof status === 'string' &&
    STATUS_PATTERN.test(status) &&
    typeof start === 'string' &&
    (typeof finish === 'string' || finish === undefined || finish === null)
  ) {
    const startTime = parseCanonicalUtc(start);
    const finishTime = isNothing(finish) ? null : parseCanonicalUtc(finish as string);
    if (startTime !== undefined && finishTime !== undefined && (finishTime === null || finishTime >= startTime)) {
      const session = { sessionId, audienceId: isNothing(audienceId) ? null : audienceId, status, startTime, finishTime };
      return { line, session, problems: undefined, sessionId };
    }
  }
  return checkRecordFully(line, values);
}

/** Checks one record's values, reporting every problem, in field order. */
function checkRecordFully(line: number, values: RecordValues): CheckedRecord {
  const { sessionId: rawId, audienceId: rawAudience, status: rawStatus, startTime: rawStart, finishTime: rawFinish } = values;
  let problems: string[] | undefined;
  if (isAbsent(rawId)) problems = withProblem(problems, 'sessionId is missing');
  if (isAbsent(rawStatus)) problems = withProblem(problems, 'status is missing');
  if (isAbsent(rawStart)) problems = withProblem(problems, 'startTime is missing');

  const sessionId = uuidValue(rawId);
  if (sessionId === INVALID) problems = withProblem(problems, uuidProblem('sessionId', rawId));
  const audienceId = uuidValue(rawAudience);
  if (audienceId === INVALID) problems = withProblem(problems, uuidProblem('audienceId', rawAudience));
  let status: string | null = null;
  if (!isAbsent(rawStatus)) {
    if (typeof rawStatus === 'string' && STATUS_PATTERN.test(rawStatus.trim())) status = rawStatus.trim();
    else {
      problems = withProblem(
        problems,
        `status must be 1-32 uppercase letters, digits or '_', starting with a letter, e.g. COMPLETE (got ${shown(rawStatus)})`,
      );
    }
  }
  const startTime = timeValue(rawStart);
  if (startTime === INVALID) problems = withProblem(problems, timeProblem('startTime', rawStart));
  const finishTime = timeValue(rawFinish);
  if (finishTime === INVALID) problems = withProblem(problems, timeProblem('finishTime', rawFinish));
  if (typeof startTime === 'number' && typeof finishTime === 'number' && finishTime < startTime) {
    problems = withProblem(problems, 'finishTime is before startTime');
  }

  const id = typeof sessionId === 'string' ? sessionId : undefined;
  if (problems || id === undefined || status === null || typeof startTime !== 'number') {
    return { line, session: undefined, problems: problems ?? ['sessionId is missing'], sessionId: id };
  }
  return {
    line,
    session: {
      sessionId: id,
      audienceId: audienceId === INVALID ? null : audienceId,
      status,
      startTime,
      finishTime: finishTime === INVALID ? null : finishTime,
    },
    problems: undefined,
    sessionId: id,
  };
}

/**
 * Adds a record's details (checked against the plan) to its session, or their problems to the
 * record's. Absent, null or (CSV) empty details leave the session's stored details as they are.
 */
function withDetails(record: CheckedRecord, raw: unknown, plan: TestPlan | null): CheckedRecord {
  if (isNothing(raw)) return record;
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch (err) {
      return { ...record, session: undefined, problems: [...(record.problems ?? []), `details is not valid JSON (${(err as Error).message})`] };
    }
    if (nestsTooDeep(value)) return { ...record, session: undefined, problems: [...(record.problems ?? []), tooDeepProblem('details')] };
  }
  const checked = checkSessionDetails(value, plan);
  if ('problems' in checked) return { ...record, session: undefined, problems: [...(record.problems ?? []), ...checked.problems] };
  return record.session ? { ...record, session: { ...record.session, details: storedDetails(checked.details) } } : record;
}

// --- times ---------------------------------------------------------------------------------

// ISO 8601 extended format with a required offset: 2024-11-21T12:23:52.614Z, 2024-11-21T13:23:52+01:00.
const ISO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  return month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1]!;
}

/**
 * Epoch milliseconds of an ISO 8601 time with a timezone, or undefined. Every part is range
 * checked here because Date.parse rolls impossible dates over (Feb 30 becomes Mar 1).
 * Digits beyond milliseconds are dropped, as the store keeps milliseconds.
 */
export function parseIsoTime(text: string): number | undefined {
  const canonical = parseCanonicalUtc(text);
  if (canonical !== undefined) return canonical;
  const m = ISO_TIME.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? '0'].map(Number) as [
    number, number, number, number, number, number,
  ];
  const millis = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  const offsetMinutes = m[8] ? 0 : (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11]));
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  if (Number(m[10] ?? 0) > 23 || Number(m[11] ?? 0) > 59) return undefined;
  const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, second, millis));
  date.setUTCFullYear(year); // Date.UTC maps years 0-99 to 1900-1999
  return date.getTime() - offsetMinutes * 60_000;
}

/**
 * The form nearly every file uses, `2024-11-21T12:23:52Z` or `2024-11-21T12:23:52.614Z`
 * (what toISOString writes), read digit by digit: a million rows hold two million times.
 * Anything else, out-of-range values included, is left to the general reading (undefined).
 */
function parseCanonicalUtc(text: string): number | undefined {
  const n = text.length;
  if (n === 24) {
    if (text.charCodeAt(19) !== 46 /* . */ || text.charCodeAt(23) !== 90 /* Z */) return undefined;
  } else if (n !== 20 || text.charCodeAt(19) !== 90) return undefined;
  if (
    text.charCodeAt(4) !== 45 /* - */ ||
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(10) !== 84 /* T */ ||
    text.charCodeAt(13) !== 58 /* : */ ||
    text.charCodeAt(16) !== 58
  ) {
    return undefined;
  }
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  const millis = n === 24 ? digits(text, 20, 3) : 0;
  if (year < 0 || month < 1 || month > 12 || day < 1 || millis < 0) return undefined;
  if (day > daysInMonth(year, month) || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) {
    return undefined;
  }
  return ((daysSinceEpoch(year, month, day) * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil); Date.UTC is several times slower. */
function daysSinceEpoch(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** The decimal number in text[at, at+count), or -1 if any of those is not a digit. */
function digits(text: string, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    value = value * 10 + d;
  }
  return value;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}
