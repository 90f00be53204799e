import { afterAll, afterEach, expect, it } from 'vitest';
import { ManualClock } from '../../clock.js';
import { describeIfPostgres, dropSchemas, uniqueSchemaName } from '../../../test/helpers/postgres.js';
import { StoreConflictError } from '../store.js';
import { describeStoreContract } from '../store.contract.js';
import { PostgresStore } from './postgres-store.js';

await describeIfPostgres('PostgresStore', (url) => {
  // Each store gets its own schema, so tests (and other suites) never see each other's rows.
  const schemas = new Set<string>();
  const open: PostgresStore[] = [];
  const makeStore = (clock = new ManualClock(), schema = uniqueSchemaName('t_store')): PostgresStore => {
    schemas.add(schema);
    const store = new PostgresStore(url, clock, { schema, poolSize: 4 });
    open.push(store);
    return store;
  };
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  afterAll(async () => {
    await dropSchemas(url, schemas);
  });

  describeStoreContract('postgres', async (clock) => makeStore(clock));

  const by = { actor: 'test' };

  it('two stores migrating the same schema at once: one applies, the other waits and applies nothing', async () => {
    const schema = uniqueSchemaName('t_store');
    const results = await Promise.all([makeStore(undefined, schema).migrate(), makeStore(undefined, schema).migrate()]);
    expect(results.map((r) => r.applied.length).sort()).toEqual([0, 1]);
  });

  it('concurrent writers: one user per email, one active credential per user', async () => {
    const a = makeStore();
    await a.migrate();
    const outcomes = await Promise.allSettled([a.createUser('ada@example.com', by), a.createUser('ADA@example.com', by)]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    const issues = await Promise.allSettled(
      ['0oa1', '0oa2', '0oa3'].map((clientId) => a.createCredential({ clientId, email: 'ada@example.com', secretHash: clientId }, by)),
    );
    expect(issues.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of issues) if (o.status === 'rejected') expect((o.reason as StoreConflictError).code).toBe('duplicate');
  });

  it('concurrent imports of one new session into two tests: exactly one is refused as foreign', async () => {
    const store = makeStore();
    await store.migrate();
    await store.createWorkspace({ id: 'w', name: 'W' }, by);
    await store.createTest({ id: 't1', workspaceId: 'w', title: 'T1', productType: 'p' }, by);
    await store.createTest({ id: 't2', workspaceId: 'w', title: 'T2', productType: 'p' }, by);
    const row = { sessionId: 's1', audienceId: null, status: 'COMPLETE', startTime: 1, finishTime: null };
    const outcomes = await Promise.allSettled([store.importSessions('t1', [row], by), store.importSessions('t2', [row], by)]);
    const refused = outcomes.filter((o) => o.status === 'rejected');
    expect(refused).toHaveLength(1);
    expect((refused[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'foreign_session' });
    const counts = (await store.listTests('w')).map((t) => t.sessionCount).sort();
    expect(counts).toEqual([0, 1]);
  });

  it('concurrent key rotations leave exactly one active key', async () => {
    const store = makeStore();
    await store.migrate();
    const key = (kid: string) => ({ kid, alg: 'RS256' as const, privateKeyPem: 'pem', publicJwk: { kid }, createdAt: 1 });
    await Promise.all(['k1', 'k2', 'k3', 'k4'].map((kid) => store.addSigningKey(key(kid), by)));
    const keys = await store.listSigningKeys();
    expect(keys).toHaveLength(4);
    expect(keys.filter((k) => k.retiredAt === null)).toHaveLength(1);
  });

  it('keeps its tables in its own schema', async () => {
    const store = makeStore();
    await store.migrate();
    await store.createUser('ada@example.com', by);
    const other = makeStore();
    await other.migrate();
    expect(await other.listUsers()).toEqual([]);
    expect(() => new PostgresStore(url, new ManualClock(), { schema: 'Bad; DROP' })).toThrow(/schema/);
  });
});
