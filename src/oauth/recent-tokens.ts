import type { IssuedToken } from './access-tokens.js';

interface RecentToken {
  issuedAt: number;
  token: Promise<IssuedToken>;
}

/**
 * The token each client was last issued (per server and scope), so a client that asks again
 * soon is handed that token instead of a new one: an RS256 signature costs ~600 µs of CPU,
 * nearly all of a token request. A token counts as recent while it was issued less than
 * TOKEN_REUSE_SECONDS ago and has at least 90% of its lifetime left, so `expires_in` stays
 * close to the configured lifetime. Concurrent requests of one client share one signature.
 *
 * This class only knows age; the token endpoint also requires that a recent token is signed
 * by the current key and not revoked before handing it out again.
 */
export class RecentTokens {
  private readonly entries = new Map<string, RecentToken>();
  private readonly windowMs: number;

  constructor(
    reuseSeconds: number,
    ttlSeconds: number,
    private readonly maxEntries = 10_000,
  ) {
    this.windowMs = Math.min(reuseSeconds * 1000, ttlSeconds * 100);
  }

  /** The token issued under `key` less than the reuse window ago, if any. */
  find(key: string, now: number): Promise<IssuedToken> | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    const age = now - entry.issuedAt;
    if (age >= 0 && age < this.windowMs) return entry.token;
    this.entries.delete(key);
    return undefined;
  }

  /** Records a token being issued under `key` (pending: concurrent requests wait for it). */
  remember(key: string, now: number, token: Promise<IssuedToken>): void {
    if (this.windowMs <= 0) return;
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { issuedAt: now, token });
    // A failed signature is not recent: forget it, so the next request signs afresh.
    token.catch(() => {
      if (this.entries.get(key)?.token === token) this.entries.delete(key);
    });
  }
}
