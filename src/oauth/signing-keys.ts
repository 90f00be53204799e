import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, type JWK } from 'jose';
import type { Clock } from '../clock.js';
import type { SigningKeyRepository } from '../store/signing-keys.js';
import type { Actor, SigningKey } from '../store/store.js';

export interface LoadedKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicJwk: JWK;
  createdAt: number;
  retiredAt: number | null;
}

/** Creates a fresh RS256 key pair; the kid is its RFC 7638 thumbprint. */
export async function generateSigningKey(now: number): Promise<Omit<SigningKey, 'retiredAt'>> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(jwk);
  return {
    kid,
    alg: 'RS256',
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicJwk: { ...jwk, kid, alg: 'RS256', use: 'sig' },
    createdAt: now,
  };
}

/**
 * Until when a key is published (in the JWKS) and verifies tokens: forever while it signs,
 * then until every token it signed has expired (retiredAt + token lifetime).
 */
export function publishedUntil(key: { retiredAt: number | null }, tokenTtlMs: number): number {
  return key.retiredAt === null ? Infinity : key.retiredAt + tokenTtlMs;
}

/** Adds a new signing key; the previous one is retired but stays published (see KeyRing). */
export async function rotateSigningKey(signingKeys: SigningKeyRepository, clock: Clock, by: Actor): Promise<string> {
  const key = await generateSigningKey(clock.now());
  await signingKeys.add(key, by);
  return key.kid;
}

/** Counts the changes this process has heard of (a ChangeWatcher); cheap to ask on every request. */
export interface ChangeCounter {
  current(): number;
}

/**
 * The signing keys as this process sees them. The store is the source of truth: another
 * process (or `results-api keys rotate`) may add a key at any time, so the ring reloads
 * periodically, whenever `changes` has heard of a change (a CLI command committing to the
 * same SQLite file, an announcement on the feed), and whenever a token names a kid it does not
 * know (throttled, so a flood of made-up kids cannot turn into a flood of queries).
 */
export class KeyRing {
  private keys = new Map<string, LoadedKey>();
  private active: LoadedKey | undefined;
  private loadedAt = 0;
  /** The change count the keys were loaded under. */
  private loadedEpoch: number | undefined;
  private reloading: Promise<void> | undefined;
  private readonly refreshIntervalMs: number;
  private readonly changes: ChangeCounter | undefined;

  constructor(
    private readonly signingKeys: SigningKeyRepository,
    private readonly clock: Clock,
    /** Tokens live this long, so a retired key is published at least this long after retiring. */
    private readonly tokenTtlMs: number,
    options: { refreshIntervalMs?: number; changes?: ChangeCounter } = {},
  ) {
    this.refreshIntervalMs = options.refreshIntervalMs ?? 10_000;
    this.changes = options.changes;
  }

  /** Loads the keys, creating the first one if the database has none. */
  async init(): Promise<void> {
    if ((await this.signingKeys.list()).length === 0) {
      const key = await generateSigningKey(this.clock.now());
      // Two processes may start at once on an empty database; adding twice is harmless.
      await this.signingKeys.add(key, { actor: 'system' });
    }
    await this.reload();
  }

  async reload(): Promise<void> {
    this.reloading ??= (async () => {
      try {
        // Read before the query: a change committed during the load makes the next call reload again.
        const epoch = this.changes?.current();
        const rows = await this.signingKeys.list();
        const next = new Map<string, LoadedKey>();
        for (const row of rows) {
          // Reuse the parsed key, but take its state from the store: a key loaded while active
          // has since been retired by a rotation, and must stop being published on time.
          const known = this.keys.get(row.kid);
          next.set(row.kid, known ? { ...known, retiredAt: row.retiredAt } : loadKey(row));
        }
        this.keys = next;
        this.active = rows.filter((r) => r.retiredAt === null).map((r) => next.get(r.kid)!)[0] ?? this.active;
        this.loadedAt = this.clock.now();
        this.loadedEpoch = epoch;
      } finally {
        this.reloading = undefined;
      }
    })();
    return this.reloading;
  }

  private isStale(): boolean {
    return this.clock.now() - this.loadedAt >= this.refreshIntervalMs || this.changes?.current() !== this.loadedEpoch;
  }

  private refreshIfStale(): void {
    if (this.isStale()) void this.reload().catch(() => {});
  }

  /**
   * Reloads first when stale, so a rotation by another process is honoured on the next request
   * once this process has heard of it, and within the refresh interval regardless.
   */
  private async fresh(): Promise<void> {
    if (this.isStale()) await this.reload();
  }

  /** The key new tokens are signed with, as of at most one refresh interval ago. */
  async currentSigningKey(): Promise<LoadedKey> {
    await this.fresh();
    return this.signingKey();
  }

  /** The key new tokens are signed with (without waiting for a due refresh). */
  signingKey(): LoadedKey {
    this.refreshIfStale();
    if (!this.active) throw new Error('KeyRing used before init()');
    return this.active;
  }

  /** A key that may verify a token: active, or retired less than one token lifetime ago. */
  async verificationKey(kid: string): Promise<LoadedKey | undefined> {
    this.refreshIfStale();
    let key = this.keys.get(kid);
    if (!key && this.clock.now() - this.loadedAt >= 1000) {
      await this.reload();
      key = this.keys.get(kid);
    }
    return key && this.isPublished(key) ? key : undefined;
  }

  private isPublished(key: LoadedKey): boolean {
    return this.clock.now() < publishedUntil(key, this.tokenTtlMs);
  }

  /** RFC 7517 JWK Set of every published key; never staler than what this process signs with. */
  async jwks(): Promise<{ keys: JWK[] }> {
    await this.fresh();
    return { keys: [...this.keys.values()].filter((k) => this.isPublished(k)).map((k) => k.publicJwk) };
  }
}

function loadKey(row: SigningKey): LoadedKey {
  const privateKey = createPrivateKey(row.privateKeyPem);
  return {
    kid: row.kid,
    privateKey,
    publicKey: createPublicKey(privateKey),
    publicJwk: row.publicJwk as JWK,
    createdAt: row.createdAt,
    retiredAt: row.retiredAt,
  };
}
