import type { AccessTokenInfo } from './types.js';

/** Renew this long before the token expires, so no request leaves with a token about to lapse. */
export const REFRESH_MARGIN_MS = 60_000;

interface CachedToken {
  token: AccessTokenInfo;
  /** When the next caller should mint a new one. */
  refreshAt: number;
}

/**
 * Holds one access token. It is reused until a minute before it expires (halfway, for tokens
 * living under two minutes); then the next
 * caller mints a new one. Concurrent callers share one token request (single flight), and a
 * caller that gives up (abort, timeout) does not cancel it for the others.
 */
export class TokenCache {
  private current: CachedToken | undefined;
  private inflight: Promise<AccessTokenInfo> | undefined;

  /** `mint` requests a new token; `now` is the clock that `expiresAt` is measured with. */
  constructor(
    private readonly mint: () => Promise<AccessTokenInfo>,
    private readonly now: () => number,
  ) {}

  /** A token fresh for at least the margin, minting one if needed; rejects if `signal` aborts first. */
  get(signal: AbortSignal): Promise<AccessTokenInfo> {
    if (signal.aborted) return Promise.reject(signal.reason);
    const current = this.current;
    if (current && this.now() < current.refreshAt) return Promise.resolve(current.token);
    if (!this.inflight) {
      const mintedAt = this.now();
      const flight = this.mint();
      this.inflight = flight;
      flight.then(
        (token) => {
          // A token living under two minutes is renewed halfway instead, so it is used at all.
          const margin = Math.min(REFRESH_MARGIN_MS, (token.expiresAt - mintedAt) / 2);
          this.current = { token, refreshAt: token.expiresAt - margin };
          this.inflight = undefined;
        },
        () => {
          this.inflight = undefined;
        },
      );
    }
    return abortable(this.inflight, signal);
  }

  /**
   * Forgets `accessToken` because the API refused it. A token minted meanwhile by another
   * caller is kept: it was not the one refused.
   */
  invalidate(accessToken: string): void {
    if (this.current?.token.accessToken === accessToken) this.current = undefined;
  }
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}
