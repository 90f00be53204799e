import { beforeAll, describe, expect, it, vi } from 'vitest';
import { generateClientId, generateClientSecret } from '../../src/oauth/client-secrets.js';
import { sqliteDriver } from '../../src/store/sqlite/driver.js';
import { seedClient, type SeededClient } from '../helpers/seed.js';
import { startSeededApp } from '../helpers/test-app.js';
import { INVALID_CLIENT, introspect } from '../helpers/token-operations.js';
import { mintToken, requestToken } from '../helpers/tokens.js';

/**
 * Timing: an unknown client id must cost what a wrong secret for a known client costs, or
 * the answer's latency enumerates client ids. Wall-clock timing is noisy and CPU-dependent,
 * so this measures the evidence instead: the work each request does (store reads, HMACs,
 * constant-time comparisons and their input sizes), which must be identical, sample after sample.
 * Database work is counted as SQLite statements executed (this suite runs on SQLite only).
 */

/** Every better-sqlite3 statement's methods live on this one prototype. */
const statementMethods = (() => {
  const Database = sqliteDriver();
  const db = new Database(':memory:');
  const proto = Object.getPrototypeOf(db.prepare('SELECT 1')) as Record<'run' | 'get' | 'all' | 'iterate', () => unknown>;
  db.close();
  return proto;
})();

interface Work {
  status: number;
  statements: number;
  hashes: number;
  comparisons: string[];
}

const { t, client: known } = await startSeededApp({ env: { RATE_LIMIT_TOKEN_ADDRESS: '100000', RATE_LIMIT_TOKEN_CLIENT: '100000' } });
let rotating: SeededClient;

beforeAll(async () => {
  // Mid-rotation: two live secrets.
  rotating = await seedClient(t.runtime);
  await t.runtime.store.credentials.addCredentialSecret(
    { clientId: rotating.clientId, secretHash: t.runtime.hasher.hash(generateClientSecret()), retireOthersAt: Date.now() + 3_600_000 },
    { actor: 'test' },
  );
});

/** What one failing request did, counted by spies on the store and the hasher. */
async function workOf(send: () => Promise<Response>): Promise<Work> {
  const statements = (['run', 'get', 'all', 'iterate'] as const).map((name) => vi.spyOn(statementMethods, name));
  const hashes = vi.spyOn(t.runtime.hasher, 'hash');
  const comparisons = vi.spyOn(t.runtime.hasher, 'constantTimeEqual');
  try {
    const res = await send();
    expect(await res.json()).toEqual(INVALID_CLIENT);
    return {
      status: res.status,
      statements: statements.reduce((n, spy) => n + spy.mock.calls.length, 0),
      hashes: hashes.mock.calls.length,
      comparisons: comparisons.mock.calls.map(([a, b]) => `${a.length}:${b.length}`),
    };
  } finally {
    vi.restoreAllMocks();
  }
}

const wrongSecret = (clientId: string) => ({ clientId, clientSecret: generateClientSecret() });

describe('client authentication does the same work for an unknown client id and a wrong secret', () => {
  it('token endpoint: identical database statements, HMACs and comparisons, on every one of 20 interleaved samples', async () => {
    const samples: { unknown: Work; wrong: Work; wrongMidRotation: Work }[] = [];
    for (let i = 0; i < 20; i++) {
      samples.push({
        unknown: await workOf(() => requestToken(t, wrongSecret(generateClientId()), { auth: i % 2 ? 'basic' : 'post' })),
        wrong: await workOf(() => requestToken(t, wrongSecret(known.clientId), { auth: i % 2 ? 'basic' : 'post' })),
        wrongMidRotation: await workOf(() => requestToken(t, wrongSecret(rotating.clientId), { auth: i % 2 ? 'basic' : 'post' })),
      });
    }
    const expected: Work = { status: 401, statements: 1, hashes: 1, comparisons: ['43:43', '43:43', '43:43'] };
    for (const sample of samples) expect(sample).toEqual({ unknown: expected, wrong: expected, wrongMidRotation: expected });
  });

  it('introspection endpoint: the same', async () => {
    const token = await mintToken(t, known);
    const unknown = await workOf(() => introspect(t, wrongSecret(generateClientId()), token));
    const wrong = await workOf(() => introspect(t, wrongSecret(known.clientId), token));
    expect(unknown).toEqual(wrong);
    expect(wrong.hashes).toBe(1);
  });

  it('the right secret goes through the same comparisons (so the decoys are not a failure-only path)', async () => {
    const hashes = vi.spyOn(t.runtime.hasher, 'hash');
    const comparisons = vi.spyOn(t.runtime.hasher, 'constantTimeEqual');
    try {
      expect((await requestToken(t, known)).status).toBe(200);
      expect([hashes.mock.calls.length, comparisons.mock.calls.length]).toEqual([1, 3]);
    } finally {
      vi.restoreAllMocks();
    }
  });
});
