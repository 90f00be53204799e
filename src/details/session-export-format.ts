import type { SessionResult } from '@results-api/client';

/**
 * How `sessions export` writes sessions: NDJSON (one JSON object a line) or CSV per RFC 4180
 * (a header row, CRLF line breaks, a field quoted when it holds a comma, quote or line break).
 * Both are read back by `sessions import`.
 */

export type ExportFormat = 'ndjson' | 'csv';

export const EXPORT_FORMATS: readonly ExportFormat[] = ['ndjson', 'csv'];

export const CSV_COLUMNS = ['sessionId', 'audienceId', 'status', 'startTime', 'finishTime'] as const;

/** RFC 4180 §2.6-2.7: enclose in quotes when needed, and double every quote inside. */
export function csvField(value: string | null): string {
  if (value === null) return '';
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** RFC 4180 §2.1: every record, the last included, ends with CRLF. */
export function csvRecord(values: readonly (string | null)[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}

/** A session's summary fields in a fixed order, whatever order the server sent them in. */
export const summaryRecord = (s: SessionResult) => ({ sessionId: s.sessionId, audienceId: s.audienceId, status: s.status, startTime: s.startTime, finishTime: s.finishTime });

/** What to write first (the CSV header; nothing for NDJSON), and how to write each session. */
export function sessionEncoder(format: ExportFormat): { header: string; encode: (session: SessionResult) => string } {
  if (format === 'csv') {
    return {
      header: csvRecord(CSV_COLUMNS),
      encode: (s) => csvRecord(CSV_COLUMNS.map((column) => s[column])),
    };
  }
  return {
    header: '',
    encode: (s) => `${JSON.stringify(summaryRecord(s))}\n`,
  };
}
