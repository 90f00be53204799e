import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.js';
import { openSqliteStore } from '../../test/helpers/stores.js';
import type { Store } from '../store/open-store.js';
import { generateSigningKey, KeyRing, publishedUntil } from './signing-keys.js';

const START = Date.UTC(2026, 0, 1);
const TTL_MS = 3600_000;
const REFRESH_MS = 10_000;

describe('KeyRing: when it notices a key another process added', () => {
  let dir: string;
  let store: Store;
  let clock: ManualClock;
  let changes: { count: number; current(): number };
  let ring: KeyRing;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'results-api-keyring-'));
    clock = new ManualClock(START);
    store = await openSqliteStore(join(dir, 'keys.db'), clock);
    await store.database.migrate();
    changes = { count: 0, current: () => changes.count };
    ring = new KeyRing(store.signingKeys, clock, TTL_MS, { refreshIntervalMs: REFRESH_MS, changes });
    await ring.init();
  });
  afterEach(async () => {
    await store.database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Adds a key behind the ring's back, as a CLI command in another process does. */
  async function addKeyElsewhere(): Promise<string> {
    const key = await generateSigningKey(clock.now());
    await store.signingKeys.add(key, { actor: 'test' });
    return key.kid;
  }

  it('signs with the new key on the next call once the change counter moves', async () => {
    const oldKid = ring.signingKey().kid;
    const newKid = await addKeyElsewhere();
    expect((await ring.currentSigningKey()).kid).toBe(oldKid);

    changes.count++;
    expect((await ring.currentSigningKey()).kid).toBe(newKid);
    expect((await ring.jwks()).keys.map((k) => k.kid).sort()).toEqual([oldKid, newKid].sort());
  });

  it('the JWKS reloads on a change too', async () => {
    const oldKid = ring.signingKey().kid;
    const newKid = await addKeyElsewhere();
    changes.count++;
    expect((await ring.jwks()).keys.map((k) => k.kid).sort()).toEqual([oldKid, newKid].sort());
  });

  it('without a change heard, within the refresh interval regardless', async () => {
    const oldKid = ring.signingKey().kid;
    const newKid = await addKeyElsewhere();
    clock.advance(REFRESH_MS - 1);
    expect((await ring.currentSigningKey()).kid).toBe(oldKid);
    clock.advance(1);
    expect((await ring.currentSigningKey()).kid).toBe(newKid);
  });

  it('does not reload while nothing changed', async () => {
    let reads = 0;
    const listSigningKeys = store.signingKeys.list.bind(store.signingKeys);
    store.signingKeys.list = () => (reads++, listSigningKeys());
    for (let i = 0; i < 5; i++) await ring.currentSigningKey();
    await ring.jwks();
    expect(reads).toBe(0);
  });
});

describe('publishedUntil', () => {
  it('is forever for the active key, retiredAt + token lifetime for a retired one', () => {
    expect(publishedUntil({ retiredAt: null }, TTL_MS)).toBe(Infinity);
    expect(publishedUntil({ retiredAt: START }, TTL_MS)).toBe(START + TTL_MS);
  });
});
