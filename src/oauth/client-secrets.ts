import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { SettingsRepository } from '../store/settings.js';
import { randomBase62 } from './random.js';

/** Public client id, Okta-like: `0oa` + 17 base62 characters. */
export const generateClientId = (): string => `0oa${randomBase62(17)}`;

/** 256 bits of randomness, base64url: shown once, never stored. */
export const generateClientSecret = (): string => randomBytes(32).toString('base64url');

export const CLIENT_ID_PATTERN = /^0oa[0-9A-Za-z]{17}$/;

/**
 * Secrets are random 256-bit values, so a keyed SHA-256 (HMAC) is as strong as a slow KDF
 * here and costs microseconds instead of tens of milliseconds per token request. The key is
 * generated once per deployment and kept in the database's settings.
 */
export class SecretHasher {
  private constructor(private readonly key: Buffer) {}

  static async load(settings: SettingsRepository): Promise<SecretHasher> {
    const key = await settings.getOrSet('client_secret_hash_key', randomBytes(32).toString('base64'));
    return new SecretHasher(Buffer.from(key, 'base64'));
  }

  hash(secret: string): string {
    return createHmac('sha256', this.key).update(secret, 'utf8').digest('base64url');
  }

  /** Constant-time comparison of `secret` against a stored hash. */
  matches(secret: string, storedHash: string): boolean {
    const a = Buffer.from(this.hash(secret));
    const b = Buffer.from(storedHash);
    return a.length === b.length && timingSafeEqual(a, b);
  }
}
