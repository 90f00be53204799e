import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { SettingsRepository } from '../store/settings.js';
import { randomBase62 } from './random.js';

/** Public client id, Okta-like: `0oa` + 17 base62 characters. */
export const generateClientId = (): string => `0oa${randomBase62(17)}`;

/** 256 bits of randomness, base64url: shown once, never stored. */
export const generateClientSecret = (): string => randomBytes(32).toString('base64url');

export const CLIENT_ID_PATTERN = /^0oa[0-9A-Za-z]{17}$/;

/**
 * Every check compares against at least this many stored hashes (padded with decoys): more
 * than a client holds in normal use (its secret, and one or two in rotation grace), so an
 * unknown client, a client with one secret and one mid-rotation all cost the same.
 */
const MIN_COMPARISONS = 3;

/**
 * Secrets are random 256-bit values, so a keyed SHA-256 (HMAC) is as strong as a slow KDF
 * here and costs microseconds instead of tens of milliseconds per token request. The key is
 * generated once per deployment and kept in the database's settings.
 */
export class SecretHasher {
  /** A hash no presented secret can match (its preimage is discarded), compared when a slot is empty. */
  private readonly decoy: Buffer;

  private constructor(private readonly key: Buffer) {
    this.decoy = Buffer.from(this.hash(randomBytes(32).toString('base64url')));
  }

  static async load(settings: SettingsRepository): Promise<SecretHasher> {
    const key = await settings.getOrSet('client_secret_hash_key', randomBytes(32).toString('base64'));
    return new SecretHasher(Buffer.from(key, 'base64'));
  }

  hash(secret: string): string {
    return createHmac('sha256', this.key).update(secret, 'utf8').digest('base64url');
  }

  /**
   * Does `secret` match one of the `stored` hashes that is still `live`? The work does not
   * depend on the answer or on whether the client exists: one HMAC, then a constant-time
   * comparison with every stored hash (no early exit), padded with decoys to MIN_COMPARISONS.
   */
  matchesAny(secret: string, stored: readonly { hash: string; live: boolean }[]): boolean {
    const presented = Buffer.from(this.hash(secret));
    let matched = false;
    for (let i = 0; i < Math.max(MIN_COMPARISONS, stored.length); i++) {
      const candidate = stored[i];
      const equal = this.constantTimeEqual(presented, candidate ? Buffer.from(candidate.hash) : this.decoy);
      matched = (equal && candidate?.live === true) || matched;
    }
    return matched;
  }

  /** timingSafeEqual that also accepts unequal lengths (a corrupt stored hash), doing the same work. */
  constantTimeEqual(a: Buffer, b: Buffer): boolean {
    if (a.length !== b.length) return !timingSafeEqual(a, a);
    return timingSafeEqual(a, b);
  }
}
