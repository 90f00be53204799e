/**
 * When to try a request again, and how long to wait first.
 *
 * - 429: wait as long as the server asked (`Retry-After`, RFC 9110 §10.2.3, in seconds or as
 *   an HTTP date; otherwise `x-ratelimit-reset`), whatever the method: the server refused the
 *   request without acting on it.
 * - No response at all, or a 5xx: only when repeating the request is safe (GET, and the token
 *   request: a client-credentials grant repeated only mints another token), with capped
 *   exponential backoff and full jitter, so many clients recovering together do not retry in
 *   lockstep.
 * - Anything else is the caller's to handle: it is thrown at once.
 */

/** How retries are paced. */
export interface RetryPolicy {
  maxRetries: number;
  /** First backoff ceiling; doubles with every attempt. */
  baseDelayMs: number;
  /** Ceiling of any one backoff. */
  maxDelayMs: number;
  /** A number in [0, 1). */
  random: () => number;
}

/** Five retries wait at most 0.25 + 0.5 + 1 + 2 + 4 s of backoff (429 waits are the server's to set). */
export const DEFAULT_RETRY_POLICY: Omit<RetryPolicy, 'random'> = {
  maxRetries: 5,
  baseDelayMs: 250,
  maxDelayMs: 20_000,
};

/** What one attempt came to, as far as retrying is concerned. */
export type AttemptFailure =
  | { kind: 'network' }
  | { kind: 'status'; status: number; headers: Headers };

/**
 * Milliseconds to wait before attempt `attempt + 1`, or undefined when the failure must not
 * be retried. `attempt` counts from 0.
 */
export function retryDelayMs(
  failure: AttemptFailure,
  attempt: number,
  options: { repeatable: boolean; policy: RetryPolicy; now: number },
): number | undefined {
  if (attempt >= options.policy.maxRetries) return undefined;
  if (failure.kind === 'status' && failure.status === 429) {
    return serverRequestedDelayMs(failure.headers, options.now) ?? backoffMs(attempt, options.policy);
  }
  if (!options.repeatable) return undefined;
  if (failure.kind === 'network' || failure.status >= 500) return backoffMs(attempt, options.policy);
  return undefined;
}

/** Full jitter: uniformly random between 0 and the capped exponential ceiling. */
export function backoffMs(attempt: number, policy: RetryPolicy): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.floor(policy.random() * ceiling);
}

/** `Retry-After` (seconds or HTTP date), else `x-ratelimit-reset` (seconds); undefined if neither. */
export function serverRequestedDelayMs(headers: Headers, now: number): number | undefined {
  const retryAfter = headers.get('retry-after')?.trim();
  if (retryAfter) {
    if (/^\d+$/.test(retryAfter)) return Number(retryAfter) * 1000;
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  const reset = headers.get('x-ratelimit-reset')?.trim();
  if (reset && /^\d+$/.test(reset)) return Number(reset) * 1000;
  return undefined;
}

/** Seconds from `Retry-After`, when given as seconds. */
export function retryAfterSeconds(headers: Headers): number | undefined {
  const value = headers.get('retry-after')?.trim();
  return value && /^\d+$/.test(value) ? Number(value) : undefined;
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
