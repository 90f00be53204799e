/**
 * When a failed delivery is tried again: exponential backoff with jitter (the first retry
 * within 30 s, then doubling up to six hours apart), for three days from the event's first
 * attempt; a receiver's Retry-After is honoured instead (up to a day). A subscription whose
 * deliveries have failed for three days without a success is disabled.
 */
export const RETRY_WINDOW_MS = 3 * 24 * 3600_000;
const FIRST_RETRY_MS = 15_000;
const MAX_RETRY_MS = 6 * 3600_000;
const MAX_RETRY_AFTER_MS = 24 * 3600_000;

/** The wait after failed attempt `attempt` (from 1): 15 s ±50%, then twice as long each time, at most 6 h ±50%. */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.5 + random()));
}

/** A Retry-After header's wait in milliseconds (delta-seconds or an HTTP date), or null when absent or unreadable. */
export function retryAfterMs(header: string | undefined, now: number): number | null {
  if (!header) return null;
  const value = header.trim();
  const ms = /^\d+$/.test(value) ? Number(value) * 1000 : Date.parse(value) - now;
  if (!Number.isFinite(ms)) return null;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(1000, ms));
}

/** The next attempt's time, or null once it would fall past the retry window of a delivery created at `createdAt`. */
export function nextAttemptAt(attempt: number, createdAt: number, now: number, retryAfter: number | null, random?: () => number): number | null {
  const at = now + (retryAfter ?? backoffMs(attempt, random));
  return at - createdAt > RETRY_WINDOW_MS ? null : at;
}
