import pg from 'pg';
import { afterAll, afterEach, expect, it } from 'vitest';
import { ManualClock } from '../../clock.js';
import { describeIfPostgres, dropSchemas, uniqueSchemaName } from '../../../test/helpers/postgres.js';
import { openPostgresStore } from '../../../test/helpers/stores.js';
import type { Announce } from '../database.js';
import { StoreConflictError } from '../conflicts.js';
import type { Store } from '../open-store.js';
import { describeSessionDetailsContract } from '../session-details.contract.js';
import { describeClipsContract } from '../clips.contract.js';
import { describeJobsContract } from '../jobs.contract.js';
import { describeWebhooksContract } from '../webhooks.contract.js';
import { describeStoreContract } from '../store.contract.js';
import { describeTranscriptContract } from '../transcripts.contract.js';
import { describeVideoContract } from '../videos.contract.js';
import { describeAdminsContract } from '../admins.contract.js';
import { expectPlanIdsMigrated, OLD_ROWS } from '../../../test/helpers/plan-migration.js';
import { expectPendingBatchesMigrated } from '../../../test/helpers/outbox-migration.js';
import { postgresMigrations } from './migrations.js';
import { PostgresDatabase } from './postgres-database.js';

await describeIfPostgres('PostgreSQL store', (url) => {
  // Each store gets its own schema, so tests (and other suites) never see each other's rows.
  const schemas = new Set<string>();
  const open: Store[] = [];
  const makeStore = async (clock = new ManualClock(), schema = uniqueSchemaName('t_store'), announce?: Announce): Promise<Store> => {
    schemas.add(schema);
    const store = await openPostgresStore(url, clock, schema, announce);
    open.push(store);
    return store;
  };
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.database.close()));
  });
  // Over a hundred schemas to drop: more than the default hook timeout on a loaded machine.
  afterAll(async () => {
    await dropSchemas(url, schemas);
  }, 120_000);

  describeStoreContract('postgres', (clock, announce) => makeStore(clock, undefined, announce));
  describeSessionDetailsContract('postgres', (clock, announce) => makeStore(clock, undefined, announce));
  describeTranscriptContract('postgres', (clock, announce) => makeStore(clock, undefined, announce));
  describeVideoContract('postgres', (clock, announce) => makeStore(clock, undefined, announce));
  describeAdminsContract('postgres', (clock, announce) => makeStore(clock, undefined, announce));
  describeJobsContract('postgres', (clock, announce) => makeStore(clock, undefined, announce));
  describeWebhooksContract('postgres', (clock, announce) => makeStore(clock, undefined, announce));
  describeClipsContract('postgres', (clock, announce) => makeStore(clock, undefined, announce));

  const by = { actor: 'test' };

  it('two stores migrating the same schema at once: one applies, the other waits and applies nothing', async () => {
    const schema = uniqueSchemaName('t_store');
    const [a, b] = await Promise.all([makeStore(undefined, schema), makeStore(undefined, schema)]);
    const results = await Promise.all([a.database.migrate(), b.database.migrate()]);
    expect(results.map((r) => r.applied.length).sort()).toEqual([0, postgresMigrations.length]);
  });

  it('migration 2 counts the sessions a version-1 schema already holds, per test and status', async () => {
    const schema = uniqueSchemaName('t_store');
    schemas.add(schema);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`CREATE SCHEMA ${schema}; SET search_path TO ${schema}`);
      await client.query('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)');
      await client.query(postgresMigrations.find((m) => m.version === 1)!.sql);
      await client.query(`INSERT INTO schema_migrations VALUES (1, 0);
        INSERT INTO workspaces VALUES ('w', 'W', 0);
        INSERT INTO tests VALUES ('t1', 'w', 'T1', 'survey', 0, 3), ('t2', 'w', 'T2', 'survey', 0, 1);
        INSERT INTO sessions VALUES ('t1', 1, 's1', NULL, 'COMPLETE', 2), ('t1', 2, 's2', NULL, 'ABANDONED', NULL),
                                    ('t1', 3, 's3', NULL, 'COMPLETE', 4), ('t2', 1, 's4', NULL, 'IN_PROGRESS', NULL);`);
    } finally {
      await client.end();
    }
    const store = await makeStore(undefined, schema);
    expect((await store.database.migrate()).applied).toEqual(postgresMigrations.filter((m) => m.version > 1).map((m) => m.version));
    expect(await store.sessions.countSessionsByStatus('t1')).toEqual({ ABANDONED: 1, COMPLETE: 2 });
    expect(await store.sessions.countSessionsByStatus('t2')).toEqual({ IN_PROGRESS: 1 });
    expect((await store.sessions.listSessions('t1', 0, 10, { status: 'COMPLETE' })).map((s) => s.sessionId)).toEqual(['s3', 's1']);
  });

  /** A schema migrated by hand up to `version`, then given old rows by `seed`: what an older build left behind. */
  async function schemaAt(version: number, seed: (client: pg.Client) => Promise<unknown>): Promise<string> {
    const schema = uniqueSchemaName('t_store');
    schemas.add(schema);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`CREATE SCHEMA ${schema}; SET search_path TO ${schema}`);
      await client.query('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)');
      for (const m of postgresMigrations.filter((m) => m.version <= version)) {
        await client.query(m.sql);
        await client.query('INSERT INTO schema_migrations VALUES ($1, 0)', [m.version]);
      }
      await seed(client);
    } finally {
      await client.end();
    }
    return schema;
  }

  it('migration 12 gives the plans and group answers a version-11 schema holds the UUIDs their readable ids stand for', async () => {
    const schema = await schemaAt(11, async (client) => {
      const { workspace, test, details } = OLD_ROWS;
      await client.query('INSERT INTO workspaces (id, name, created_at) VALUES ($1, $2, $3)', [workspace.id, workspace.name, workspace.createdAt]);
      await client.query("INSERT INTO tests (id, workspace_id, title, product_type, created_at, session_count, test_plan) VALUES ($1, $2, 'T', 'SURVEY', 0, 0, $3)", [test.id, workspace.id, test.plan]);
      await client.query('INSERT INTO session_details (session_id, test_id, scoring, details) VALUES ($1, $2, $3, $4)', [details.sessionId, details.testId, details.scoring, details.details]);
    });
    const store = await makeStore(undefined, schema);
    expect((await store.database.migrate()).applied).toEqual(postgresMigrations.filter((m) => m.version >= 12).map((m) => m.version));
    await expectPlanIdsMigrated(store);
  });

  it('migration 18 drops the unread index of refresh tokens by grant and keeps every token of a version-17 schema', async () => {
    const schema = await schemaAt(17, (client) =>
      client.query(`INSERT INTO users (id, email, email_key, status, created_at) VALUES ('u1', 'u1@example.com', 'u1@example.com', 'active', 0);
        INSERT INTO app_grants (id, user_id, client_id, scopes, created_at) VALUES ('g1', 'u1', 'app1', 'results:read', 0);
        INSERT INTO refresh_tokens (token_hash, grant_id, created_at, expires_at) VALUES ('h1', 'g1', 0, 1);`),
    );
    const store = await makeStore(undefined, schema);
    expect((await store.database.migrate()).applied).toEqual(postgresMigrations.filter((m) => m.version >= 18).map((m) => m.version));
    expect(await store.database.all('SELECT indexname FROM pg_indexes WHERE schemaname = @schema AND tablename = @table', { schema, table: 'refresh_tokens' }))
      .toEqual([{ indexname: 'refresh_tokens_pkey' }]);
    expect(await store.apps.grantOfRefreshToken('h1', 'app1')).toBe('g1');
  });

  it('migration 19 puts the test of every entry a version-18 schema holds into its document, so a search within one test finds its entries only', async () => {
    const [t1, t2] = ['0b3c1234-5678-4abc-8def-000000000001', '0b3c1234-5678-4abc-8def-000000000002'];
    const schema = await schemaAt(18, (client) =>
      client.query(
        `INSERT INTO search_entries (session_id, test_id, kind, start_ms, end_ms, speaker, text)
         VALUES ('s1', $1, 'transcript', 0, 1, NULL, 'The checkout button is green.'), ('s2', $2, 'transcript', 0, 1, NULL, 'Checkout button, where?'),
                ('s3', $2, 'transcript', 0, 1, NULL, 'No checkout here.')`,
        [t1, t2],
      ),
    );
    const store = await makeStore(undefined, schema);
    expect((await store.database.migrate()).applied).toEqual(postgresMigrations.filter((m) => m.version >= 19).map((m) => m.version));
    const sessionsOf = async (testIds: string[]) => (await store.search.search(['checkout', 'button'], { testIds, kinds: ['transcript'] }, 0, 10)).map((h) => h.sessionId).sort();
    expect(await sessionsOf([t1])).toEqual(['s1']);
    expect(await sessionsOf([t2])).toEqual(['s2']);
    expect(await sessionsOf([t1, t2])).toEqual(['s1', 's2']);
    // The lexeme adds no position: the rank is the words' alone.
    const [ranked] = await store.database.all<{ same: boolean }>(
      "SELECT ts_rank(document, to_tsquery('english', 'checkout')) = ts_rank(to_tsvector('english', text), to_tsquery('english', 'checkout')) AS same FROM search_entries WHERE session_id = 's1'",
    );
    expect(ranked?.same).toBe(true);
  });

  it('search over more entries than its first ranges: the newest matches first, from whichever range holds them', async () => {
    const store = await makeStore();
    await store.database.migrate();
    const testId = '0b3c1234-5678-4abc-8def-000000000003';
    // 40,000 entries (more than the first range, 32 x 1,000): 'alpha' in each (found in the first range), 'beta' in every
    // hundredth (400: the second range's), 'gamma' in every thousandth (40: too few to try the second range; all entries').
    await store.database.write(null, (tx) =>
      tx.run(
        `INSERT INTO search_entries (session_id, test_id, kind, start_ms, end_ms, speaker, text)
         SELECT 's', @testId, 'transcript', i, i, NULL, CASE WHEN i % 1000 = 0 THEN 'alpha beta gamma' WHEN i % 100 = 0 THEN 'alpha beta' ELSE 'alpha' END FROM generate_series(1, 40000) AS i`,
        { testId },
      ),
    );
    const within = { testIds: [testId], kinds: ['transcript' as const] };
    const alpha = await store.search.search(['alpha'], within, 0, 100);
    expect(alpha).toHaveLength(100);
    expect(alpha.every((h) => h.startMs! > 39_000)).toBe(true);
    const beta: number[] = [];
    for (let offset = 0; offset < 500; offset += 100) beta.push(...(await store.search.search(['beta'], within, offset, 100)).map((h) => h.startMs!));
    expect(beta.sort((a, b) => a - b)).toEqual(Array.from({ length: 400 }, (_, i) => (i + 1) * 100));
    const gamma = (await store.search.search(['gamma'], within, 0, 100)).map((h) => h.startMs!);
    expect(gamma.sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => (i + 1) * 1000));
  });

  it("migration 20 adds the import's outbox batches to a version-19 schema; a batch committed by a process that died before expanding it is delivered by the next", async () => {
    const schema = await schemaAt(19, async () => undefined);
    await expectPendingBatchesMigrated(() => openPostgresStore(url, new ManualClock(), schema));
    // Stored out of line, uncompressed (a batch lives only until its expansion).
    const store = await makeStore(undefined, schema);
    expect(await store.database.one("SELECT attstorage FROM pg_attribute WHERE attrelid = to_regclass(@table) AND attname = 'session_ids'", { table: `${schema}.webhook_pending_batches` }))
      .toEqual({ attstorage: 'e' });
  });

  it('concurrent writers: one user per email, one active credential per user', async () => {
    const a = await makeStore();
    await a.database.migrate();
    const outcomes = await Promise.allSettled([a.credentials.createUser('ada@example.com', by), a.credentials.createUser('ADA@example.com', by)]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    const issues = await Promise.allSettled(
      ['0oa1', '0oa2', '0oa3'].map((clientId) => a.credentials.createCredential({ clientId, email: 'ada@example.com', secretHash: clientId }, by)),
    );
    expect(issues.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of issues) if (o.status === 'rejected') expect((o.reason as StoreConflictError).code).toBe('duplicate');
  });

  it('concurrent imports of one new session into two tests: exactly one is refused as foreign', async () => {
    const store = await makeStore();
    await store.database.migrate();
    await store.directory.createWorkspace({ id: 'w', name: 'W' }, by);
    await store.directory.createTest({ id: 't1', workspaceId: 'w', title: 'T1', productType: 'p' }, by);
    await store.directory.createTest({ id: 't2', workspaceId: 'w', title: 'T2', productType: 'p' }, by);
    const row = { sessionId: 's1', audienceId: null, status: 'COMPLETE', startTime: 1, finishTime: null };
    const outcomes = await Promise.allSettled([store.sessions.importSessions('t1', [row], by), store.sessions.importSessions('t2', [row], by)]);
    const refused = outcomes.filter((o) => o.status === 'rejected');
    expect(refused).toHaveLength(1);
    expect((refused[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'foreign_session' });
    const counts = (await store.directory.listTests('w')).map((t) => t.sessionCount).sort();
    expect(counts).toEqual([0, 1]);
  });

  it('concurrent key rotations leave exactly one active key', async () => {
    const store = await makeStore();
    await store.database.migrate();
    const key = (kid: string) => ({ kid, alg: 'RS256' as const, privateKeyPem: 'pem', publicJwk: { kid }, createdAt: 1 });
    await Promise.all(['k1', 'k2', 'k3', 'k4'].map((kid) => store.signingKeys.add(key(kid), by)));
    const keys = await store.signingKeys.list();
    expect(keys).toHaveLength(4);
    expect(keys.filter((k) => k.retiredAt === null)).toHaveLength(1);
  });

  it("recording an attempt while its subscription is being deleted: one waits for the other, neither deadlocks", async () => {
    const schema = uniqueSchemaName('t_store');
    const store = await makeStore(new ManualClock(Date.UTC(2026, 0, 1)), schema);
    await store.database.migrate();
    await store.directory.createWorkspace({ id: 'w', name: 'W' }, by);
    await store.directory.createTest({ id: 't', workspaceId: 'w', title: 'T', productType: 'p' }, by);
    const { id: userId } = await store.credentials.createUser('ada@example.com', by);
    await store.credentials.createCredential({ clientId: 'c', email: 'ada@example.com', secretHash: 'h' }, by);
    const sub = await store.webhooks.create({ userId, clientId: 'c', url: 'https://hooks.example.com/in', events: ['session.completed'], secret: 'whsec_c2VjcmV0' }, by);
    await store.sessions.importSessions('t', [{ sessionId: 's1', audienceId: null, status: 'COMPLETE', startTime: 1, finishTime: null }], by);
    await store.webhookBatches.expandNext();
    const [claimed] = await store.webhookDeliveries.claim('w1', 60_000, 10);
    // A deletion's locks in its order (webhooks.delete): the subscription, then its deliveries.
    const deleting = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
    await deleting.connect();
    try {
      await deleting.query('BEGIN');
      await deleting.query('SELECT 1 FROM webhook_subscriptions WHERE id = $1 FOR UPDATE', [sub.id]);
      // A failure also marks the subscription failing: the record wants its row too.
      const recording = store.webhookDeliveries.failed(claimed!, 'w1', { responseCode: 500, durationMs: 1, error: 'HTTP 500' }, { then: 'retry', at: Date.UTC(2026, 0, 2) });
      recording.catch(() => undefined); // awaited below; a deadlock would reject it meanwhile
      await new Promise((resolve) => setTimeout(resolve, 300));
      await deleting.query('DELETE FROM webhook_deliveries WHERE subscription_id = $1', [sub.id]);
      await deleting.query('DELETE FROM webhook_subscription_events WHERE subscription_id = $1', [sub.id]);
      await deleting.query('DELETE FROM webhook_subscriptions WHERE id = $1', [sub.id]);
      await deleting.query('COMMIT');
      // The record waited for the deletion and found nothing left to record.
      expect(await recording).toBe(false);
    } finally {
      await deleting.end();
    }
  });

  it('keeps its tables in its own schema', async () => {
    const store = await makeStore();
    await store.database.migrate();
    await store.credentials.createUser('ada@example.com', by);
    const other = await makeStore();
    await other.database.migrate();
    expect(await other.credentials.listUsers()).toEqual([]);
    expect(() => new PostgresDatabase(url, new ManualClock(), async () => undefined, { schema: 'Bad; DROP' })).toThrow(/schema/);
  });
});
