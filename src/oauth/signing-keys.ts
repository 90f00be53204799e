import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, type JWK } from 'jose';
import type { Clock } from '../clock.js';
import type { Actor, SigningKey, Store } from '../store/store.js';

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

/** Adds a new signing key; the previous one is retired but stays published (see KeyRing). */
export async function rotateSigningKey(store: Store, clock: Clock, by: Actor): Promise<string> {
  const key = await generateSigningKey(clock.now());
  await store.addSigningKey(key, by);
  return key.kid;
}

/**
 * The signing keys as this process sees them. The store is the source of truth: another
 * process (or `results-api keys rotate`) may add a key at any time, so the ring reloads
 * periodically and whenever a token names a kid it does not know (throttled, so a flood of
 * made-up kids cannot turn into a flood of queries).
 */
export class KeyRing {
  private keys = new Map<string, LoadedKey>();
  private active: LoadedKey | undefined;
  private loadedAt = 0;
  private reloading: Promise<void> | undefined;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    /** Tokens live this long, so a retired key is published at least this long after retiring. */
    private readonly tokenTtlMs: number,
    private readonly refreshIntervalMs = 10_000,
  ) {}

  /** Loads the keys, creating the first one if the database has none. */
  async init(): Promise<void> {
    if ((await this.store.listSigningKeys()).length === 0) {
      const key = await generateSigningKey(this.clock.now());
      // Two processes may start at once on an empty database; adding twice is harmless.
      await this.store.addSigningKey(key, { actor: 'system' });
    }
    await this.reload();
  }

  async reload(): Promise<void> {
    this.reloading ??= (async () => {
      try {
        const rows = await this.store.listSigningKeys();
        const next = new Map<string, LoadedKey>();
        for (const row of rows) next.set(row.kid, this.keys.get(row.kid) ?? (await loadKey(row)));
        this.keys = next;
        this.active = rows.filter((r) => r.retiredAt === null).map((r) => next.get(r.kid)!)[0] ?? this.active;
        this.loadedAt = this.clock.now();
      } finally {
        this.reloading = undefined;
      }
    })();
    return this.reloading;
  }

  private refreshIfStale(): void {
    if (this.clock.now() - this.loadedAt >= this.refreshIntervalMs) void this.reload().catch(() => {});
  }

  /** The key new tokens are signed with. */
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
    return key.retiredAt === null || this.clock.now() < key.retiredAt + this.tokenTtlMs;
  }

  /** RFC 7517 JWK Set of every published key. */
  jwks(): { keys: JWK[] } {
    this.refreshIfStale();
    return { keys: [...this.keys.values()].filter((k) => this.isPublished(k)).map((k) => k.publicJwk) };
  }

  list(): LoadedKey[] {
    return [...this.keys.values()];
  }
}

async function loadKey(row: SigningKey): Promise<LoadedKey> {
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
