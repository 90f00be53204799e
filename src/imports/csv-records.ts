/**
 * CSV records per RFC 4180, read from text that may arrive in pieces (a file streamed in
 * chunks): fields separated by commas, records by CRLF (LF and CR are accepted too), fields
 * optionally enclosed in double quotes, in which commas and line breaks are data and a
 * doubled quote is one quote. A malformed record is reported and reading resumes on the next
 * line.
 */

export interface CsvRecord {
  /** 1-based line the record starts on (a quoted line break makes a record span lines). */
  line: number;
  fields: string[];
  error?: string;
}

const QUOTE = 34;
const COMMA = 44;
const CR = 13;
const LF = 10;

/** Past this, a record that has not ended is refused: a missing quote would otherwise swallow the whole file. */
export const MAX_CSV_RECORD_CHARS = 1024 * 1024;

/** Reported when more text is needed to know where the record at hand ends. */
const INCOMPLETE = -1;

/**
 * Splits CSV text fed in pieces into records, calling `onRecord` for each as soon as it is
 * complete. Only the record that straddles two pieces is kept between calls, so memory stays
 * bounded by the longest record (at most MAX_CSV_RECORD_CHARS; a longer one is reported and
 * ends the reading, as nothing after a runaway quote can be told apart from data).
 */
export class CsvRecordSplitter {
  private pending = '';
  private line = 1;
  private stopped = false;

  constructor(private readonly onRecord: (record: CsvRecord) => void) {}

  /** Whether reading ended early (a runaway record); the rest of the input is ignored. */
  get done(): boolean {
    return this.stopped;
  }

  write(text: string): void {
    if (this.stopped) return;
    this.split(this.pending === '' ? text : this.pending + text, false);
  }

  end(): void {
    if (this.stopped) return;
    this.split(this.pending, true);
    this.pending = '';
  }

  private split(text: string, final: boolean): void {
    let i = 0;
    while (i < text.length) {
      const next = this.record(text, i, final);
      if (next === INCOMPLETE) {
        this.pending = text.slice(i);
        if (this.pending.length > MAX_CSV_RECORD_CHARS) {
          this.stopped = true;
          this.pending = '';
          this.onRecord({
            line: this.line,
            fields: [],
            error: `the record is longer than ${MAX_CSV_RECORD_CHARS} characters (is a closing quote missing?); the rest of the file was not read`,
          });
        }
        return;
      }
      i = next;
    }
    this.pending = '';
  }

  /**
   * The fast path: a whole line without quotes or carriage returns is its fields split at
   * commas. Returns where the next record starts, or -1 when the line needs `record`.
   */
  private plainLine(text: string, start: number): number {
    if (text.charCodeAt(start) === QUOTE) return -1;
    const lf = text.indexOf('\n', start);
    if (lf === -1) return -1;
    const end = lf > start && text.charCodeAt(lf - 1) === CR ? lf - 1 : lf;
    const body = text.slice(start, end);
    if (body.includes('"') || body.includes('\r')) return -1;
    this.onRecord({ line: this.line++, fields: body.split(',') });
    return lf + 1;
  }

  /** Reads the record starting at `start`; returns where the next one starts, or INCOMPLETE. */
  private record(text: string, start: number, final: boolean): number {
    const plain = this.plainLine(text, start);
    if (plain !== -1) return plain;
    const n = text.length;
    let i = start;
    let line = this.line;
    const record: CsvRecord = { line, fields: [] };
    for (;;) {
      let value = '';
      if (text.charCodeAt(i) === QUOTE) {
        const openedOn = line;
        i++;
        for (;;) {
          if (i >= n) {
            if (!final) return INCOMPLETE;
            record.error = `a quoted field opened on line ${openedOn} is never closed`;
            break;
          }
          const c = text.charCodeAt(i);
          if (c === QUOTE) {
            if (i + 1 >= n && !final) return INCOMPLETE; // a doubled quote may be split between pieces
            if (text.charCodeAt(i + 1) === QUOTE) {
              value += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (c === CR || c === LF) {
            if (c === CR && i + 1 >= n && !final) return INCOMPLETE;
            const br = lineBreakAt(text, i);
            value += text.slice(i, i + br);
            i += br;
            line++;
            continue;
          }
          let j = i + 1;
          while (j < n) {
            const d = text.charCodeAt(j);
            if (d === QUOTE || d === CR || d === LF) break;
            j++;
          }
          value += text.slice(i, j);
          i = j;
        }
        if (!record.error && i < n && text.charCodeAt(i) !== COMMA && lineBreakAt(text, i) === 0) {
          record.error = 'unexpected text after a closing quote (a quote inside a quoted field must be doubled)';
        }
      } else {
        const end = unquotedFieldEnd(text, i, record);
        value = text.slice(i, end);
        i = end;
      }
      record.fields.push(value);
      if (record.error) {
        while (i < n && lineBreakAt(text, i) === 0) i++;
      }
      if (i >= n) {
        if (!final) return INCOMPLETE;
        break;
      }
      if (!record.error && text.charCodeAt(i) === COMMA) {
        i++;
        continue;
      }
      if (text.charCodeAt(i) === CR && i + 1 >= n && !final) return INCOMPLETE;
      i += lineBreakAt(text, i);
      line++;
      break;
    }
    this.line = line;
    this.onRecord(record);
    return i;
  }
}

/** Where the unquoted field starting at `start` ends; a quote inside it is the record's error. */
function unquotedFieldEnd(text: string, start: number, record: CsvRecord): number {
  let j = start;
  while (j < text.length) {
    const c = text.charCodeAt(j);
    if (c === COMMA || c === CR || c === LF) break;
    if (c === QUOTE) record.error ??= 'a field containing a quote must be enclosed in quotes';
    j++;
  }
  return j;
}

/** Length of the line break at `at` (CRLF, LF or CR), or 0. */
function lineBreakAt(text: string, at: number): number {
  const c = text.charCodeAt(at);
  if (c === CR) return text.charCodeAt(at + 1) === LF ? 2 : 1;
  return c === LF ? 1 : 0;
}

/** Every record of a whole CSV text. */
export function readCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  const splitter = new CsvRecordSplitter((record) => records.push(record));
  splitter.write(text);
  splitter.end();
  return records;
}
