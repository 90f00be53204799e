/**
 * Epoch milliseconds as UTC ISO 8601 with milliseconds, the service's one time format (API,
 * admin API and CLI alike). A time that may be absent stays absent: null in, null out.
 */
export function isoTime(ms: number): string;
export function isoTime(ms: number | null): string | null;
export function isoTime(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
