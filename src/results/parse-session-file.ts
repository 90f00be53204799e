import type { SessionInput } from '../store/store.js';
import { isUuid, uuidKey } from '../store/uuid.js';

/**
 * Reads a file of sessions to import (NDJSON or CSV) and validates every line, so that an
 * import is all or nothing: either every session is good, or every bad line is reported by
 * its line number and nothing is written.
 */

export type SessionFileFormat = 'ndjson' | 'csv';

export const SESSION_FILE_FORMATS: readonly SessionFileFormat[] = ['ndjson', 'csv'];

export const SESSION_FIELDS = ['sessionId', 'audienceId', 'status', 'startTime', 'finishTime'] as const;
type SessionField = (typeof SESSION_FIELDS)[number];
const REQUIRED_FIELDS: readonly SessionField[] = ['sessionId', 'status', 'startTime'];

/** Statuses are short uppercase identifiers such as COMPLETE or IN_PROGRESS. */
export const STATUS_PATTERN = /^[A-Z][A-Z0-9_]{0,31}$/;

export interface BadLine {
  /** 1-based line of the file; for a CSV record spanning lines, the line it starts on. */
  line: number;
  message: string;
}

export type ParsedSessionFile = { ok: true; sessions: SessionInput[] } | { ok: false; errors: BadLine[] };

/** The format a file name implies: `.ndjson`/`.jsonl` or `.csv`; undefined for anything else. */
export function sessionFileFormat(fileName: string): SessionFileFormat | undefined {
  const name = fileName.toLowerCase();
  if (name.endsWith('.ndjson') || name.endsWith('.jsonl')) return 'ndjson';
  if (name.endsWith('.csv')) return 'csv';
  return undefined;
}

export function parseSessionFile(text: string, format: SessionFileFormat): ParsedSessionFile {
  // A UTF-8 byte order mark is what spreadsheet exports start with; it is not data.
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const read = format === 'csv' ? readCsvRecords(body) : readNdjsonRecords(body);
  if (!read.sawContent) {
    const expected = format === 'csv' ? 'a header row' : 'one JSON object per line';
    return { ok: false, errors: [{ line: 1, message: `the file is empty (expected ${expected})` }] };
  }

  const errors = [...read.errors];
  const sessions: SessionInput[] = [];
  const firstLineOf = new Map<string, number>();
  for (const record of read.records) {
    const { session, problems } = validateRecord(record.values);
    const sessionId = session?.sessionId ?? sessionIdOf(record.values);
    if (sessionId !== undefined) {
      const first = firstLineOf.get(sessionId);
      if (first !== undefined) problems.push(`sessionId ${sessionId} also appears on line ${first}`);
      else firstLineOf.set(sessionId, record.line);
    }
    if (problems.length > 0) errors.push({ line: record.line, message: problems.join('; ') });
    else if (session) sessions.push(session);
  }
  errors.sort((a, b) => a.line - b.line);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, sessions };
}

// --- validation of one record ------------------------------------------------------------

type RecordValues = Partial<Record<SessionField, unknown>>;

interface ReadRecords {
  records: { line: number; values: RecordValues }[];
  /** Lines that could not even be read as a record. */
  errors: BadLine[];
  /** Whether the file held anything besides blank lines. */
  sawContent: boolean;
}

function isAbsent(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function sessionIdOf(values: RecordValues): string | undefined {
  const raw = values.sessionId;
  return typeof raw === 'string' && isUuid(raw.trim()) ? uuidKey(raw.trim()) : undefined;
}

function validateRecord(values: RecordValues): { session?: SessionInput; problems: string[] } {
  const problems: string[] = [];
  for (const field of REQUIRED_FIELDS) {
    if (isAbsent(values[field])) problems.push(`${field} is missing`);
  }

  const uuid = (field: 'sessionId' | 'audienceId'): string | null => {
    const raw = values[field];
    if (isAbsent(raw)) return null;
    if (typeof raw === 'string' && isUuid(raw.trim())) return uuidKey(raw.trim());
    problems.push(`${field} must be a UUID (got ${shown(raw)})`);
    return null;
  };
  const time = (field: 'startTime' | 'finishTime'): number | null => {
    const raw = values[field];
    if (isAbsent(raw)) return null;
    const ms = typeof raw === 'string' ? parseIsoTime(raw.trim()) : undefined;
    if (ms !== undefined) return ms;
    problems.push(`${field} must be an ISO 8601 time with a timezone, e.g. 2024-11-21T12:23:52.614Z (got ${shown(raw)})`);
    return null;
  };

  const sessionId = uuid('sessionId');
  const audienceId = uuid('audienceId');
  let status: string | null = null;
  if (!isAbsent(values.status)) {
    const raw = values.status;
    if (typeof raw === 'string' && STATUS_PATTERN.test(raw.trim())) status = raw.trim();
    else problems.push(`status must be 1-32 uppercase letters, digits or '_', starting with a letter, e.g. COMPLETE (got ${shown(raw)})`);
  }
  const startTime = time('startTime');
  const finishTime = time('finishTime');
  if (startTime !== null && finishTime !== null && finishTime < startTime) {
    problems.push('finishTime is before startTime');
  }

  if (problems.length > 0 || sessionId === null || status === null || startTime === null) return { problems };
  return { session: { sessionId, audienceId, status, startTime, finishTime }, problems };
}

// ISO 8601 extended format with a required offset: 2024-11-21T12:23:52.614Z, 2024-11-21T13:23:52+01:00.
const ISO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/;

/**
 * Epoch milliseconds of an ISO 8601 time with a timezone, or undefined. Every part is range
 * checked here because Date.parse rolls impossible dates over (Feb 30 becomes Mar 1).
 * Digits beyond milliseconds are dropped, as the store keeps milliseconds.
 */
export function parseIsoTime(text: string): number | undefined {
  const m = ISO_TIME.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? '0'].map(Number) as [
    number, number, number, number, number, number,
  ];
  const millis = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  const offsetMinutes = m[8] ? 0 : (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11]));
  const daysInMonth = new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !isLeapYear(year) ? 1 : 0);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  if (Number(m[10] ?? 0) > 23 || Number(m[11] ?? 0) > 59) return undefined;
  const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, second, millis));
  date.setUTCFullYear(year); // Date.UTC maps years 0-99 to 1900-1999
  return date.getTime() - offsetMinutes * 60_000;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

// --- NDJSON --------------------------------------------------------------------------------

function readNdjsonRecords(text: string): ReadRecords {
  const out: ReadRecords = { records: [], errors: [], sawContent: false };
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    out.sawContent = true;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      out.errors.push({ line, message: `not valid JSON (${(err as Error).message})` });
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      out.errors.push({ line, message: `expected a JSON object with ${SESSION_FIELDS.join(', ')}` });
      return;
    }
    const unknown = Object.keys(value).filter((key) => !(SESSION_FIELDS as readonly string[]).includes(key));
    if (unknown.length > 0) {
      out.errors.push({
        line,
        message: `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => shown(k)).join(', ')} (expected ${SESSION_FIELDS.join(', ')})`,
      });
      return;
    }
    out.records.push({ line, values: value as RecordValues });
  });
  return out;
}

// --- CSV (RFC 4180) ------------------------------------------------------------------------

interface CsvRecord {
  line: number;
  fields: string[];
  error?: string;
}

/**
 * Splits CSV text into records per RFC 4180: fields separated by commas, records by CRLF
 * (LF and CR are accepted too), fields optionally enclosed in double quotes, in which commas
 * and line breaks are data and a doubled quote is one quote. A malformed record is reported
 * and reading resumes on the next line.
 */
export function readCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  const n = text.length;
  let i = 0;
  let line = 1;
  const lineBreakAt = (at: number): number => (text[at] === '\r' ? (text[at + 1] === '\n' ? 2 : 1) : text[at] === '\n' ? 1 : 0);

  while (i < n) {
    const record: CsvRecord = { line, fields: [] };
    for (;;) {
      let value = '';
      if (text[i] === '"') {
        const openedOn = line;
        i++;
        for (;;) {
          if (i >= n) {
            record.error = `a quoted field opened on line ${openedOn} is never closed`;
            break;
          }
          if (text[i] === '"') {
            if (text[i + 1] === '"') {
              value += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          const br = lineBreakAt(i);
          if (br > 0) {
            value += text.slice(i, i + br);
            i += br;
            line++;
            continue;
          }
          value += text[i];
          i++;
        }
        if (!record.error && i < n && text[i] !== ',' && lineBreakAt(i) === 0) {
          record.error = 'unexpected text after a closing quote (a quote inside a quoted field must be doubled)';
        }
      } else {
        while (i < n && text[i] !== ',' && lineBreakAt(i) === 0) {
          if (text[i] === '"') record.error ??= 'a field containing a quote must be enclosed in quotes';
          value += text[i];
          i++;
        }
      }
      record.fields.push(value);
      if (record.error) {
        while (i < n && lineBreakAt(i) === 0) i++;
      }
      if (i >= n) break;
      if (!record.error && text[i] === ',') {
        i++;
        continue;
      }
      i += lineBreakAt(i);
      line++;
      break;
    }
    records.push(record);
  }
  return records;
}

function readCsvRecords(text: string): ReadRecords {
  const out: ReadRecords = { records: [], errors: [], sawContent: false };
  const isBlank = (r: CsvRecord) => !r.error && r.fields.length === 1 && r.fields[0]!.trim() === '';
  const records = readCsv(text).filter((r) => !isBlank(r));
  const header = records.shift();
  if (!header) return out;
  out.sawContent = true;

  // Without a readable header no row can be checked, so the header's problems are all there is to say.
  if (header.error) return { ...out, errors: [{ line: header.line, message: `header row: ${header.error}` }] };
  const columns: SessionField[] = [];
  const headerProblems: string[] = [];
  for (const name of header.fields.map((f) => f.trim())) {
    const field = SESSION_FIELDS.find((f) => f.toLowerCase() === name.toLowerCase());
    if (!field) headerProblems.push(`unknown column ${shown(name)}`);
    else if (columns.includes(field)) headerProblems.push(`column ${field} appears twice`);
    else columns.push(field);
  }
  for (const field of REQUIRED_FIELDS) {
    if (!columns.includes(field)) headerProblems.push(`column ${field} is missing`);
  }
  if (headerProblems.length > 0) {
    const message = `header row: ${headerProblems.join('; ')} (expected columns ${SESSION_FIELDS.join(', ')})`;
    return { ...out, errors: [{ line: header.line, message }] };
  }

  for (const record of records) {
    if (record.error) {
      out.errors.push({ line: record.line, message: record.error });
    } else if (record.fields.length !== columns.length) {
      out.errors.push({
        line: record.line,
        message: `expected ${columns.length} fields (${columns.join(',')}), found ${record.fields.length}`,
      });
    } else {
      const values: RecordValues = {};
      columns.forEach((field, index) => (values[field] = record.fields[index]!.trim()));
      out.records.push({ line: record.line, values });
    }
  }
  return out;
}
