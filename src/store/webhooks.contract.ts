/**
 * Webhooks' contract (subscriptions, the outbox, deliveries under leases), run unchanged on
 * every database next to describeStoreContract. `makeStore` returns an unmigrated store.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.js';
import type { Announce } from './database.js';
import type { Store } from './open-store.js';
import type { SessionInput } from './store.js';
import { BATCH_SESSIONS, sessionsInKeyRange, type SessionKeyRange, type WebhookEventType } from './webhook-events.js';
import { batchEventId, expansionRetryDelayMs } from './webhook-pending-batches.js';

const T0 = Date.UTC(2026, 0, 1);
const LEASE = 60_000;
const by = { actor: 'test' };
const WS = '00000000-0000-4000-8000-0000000000a1';
const OTHER_WS = '00000000-0000-4000-8000-0000000000a2';
const TEST = '00000000-0000-4000-8000-0000000000b1';
const OTHER_TEST = '00000000-0000-4000-8000-0000000000b2';
const sid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const session = (n: number, status: string): SessionInput => ({ sessionId: sid(n), audienceId: null, status, startTime: T0 + n, finishTime: null });

export function describeWebhooksContract(name: string, makeStore: (clock: ManualClock, announce: Announce) => Promise<Store>): void {
  describe(`Webhooks contract: ${name}`, () => {
    let clock: ManualClock;
    let store: Store;
    let userId: string;

    beforeEach(async () => {
      clock = new ManualClock(T0);
      store = await makeStore(clock, async () => undefined);
      await store.database.migrate();
      await store.directory.createWorkspace({ id: WS, name: 'Research' }, by);
      await store.directory.createWorkspace({ id: OTHER_WS, name: 'Other' }, by);
      await store.directory.createTest({ id: TEST, workspaceId: WS, title: 'Checkout', productType: 'THINK_OUT_LOUD' }, by);
      await store.directory.createTest({ id: OTHER_TEST, workspaceId: OTHER_WS, title: 'Other', productType: 'THINK_OUT_LOUD' }, by);
      userId = (await store.credentials.createUser('ada@example.com', by)).id;
      await store.credentials.createCredential({ clientId: 'client-1', email: 'ada@example.com', secretHash: 'h' }, by);
    });
    afterEach(async () => {
      await store.database.close();
    });

    const subscribe = (events: WebhookEventType[] = ['session.completed'], extra: { testId?: string; workspaceId?: string } = {}) =>
      store.webhooks.create({ userId, clientId: 'client-1', url: 'https://hooks.example.com/in', events, secret: 'whsec_c2VjcmV0', ...extra }, by);
    /** Expands every batch of the import's outbox (what the delivery worker does beside its claims). */
    const expandAll = async () => {
      while ((await store.webhookBatches.expandNext()) !== null);
    };
    /** A claim as the delivery worker makes it, once the import's batches are expanded. */
    const expandAndClaim = async (owner: string, leaseMs: number, limit: number) => {
      await expandAll();
      return store.webhookDeliveries.claim(owner, leaseMs, limit);
    };
    const pendingOf = async (subscriptionId: string) => {
      await expandAll();
      return (await store.webhooks.listDeliveries(subscriptionId, { limit: 100 })).filter((d) => d.status === 'pending');
    };
    const batches = () =>
      store.database.all<{ id: number; session_ids: string | null; key_range: string | null; created_at: number }>(
        'SELECT id, session_ids, key_range, created_at FROM webhook_pending_batches ORDER BY id',
      );
    /** The sessions a batch names: its ids, or those its key range covers now. */
    const sessionsOf = (b: { session_ids: string | null; key_range: string | null }): Promise<string[]> =>
      b.session_ids !== null
        ? Promise.resolve(JSON.parse(b.session_ids) as string[])
        : store.database.write(null, async (tx) => (await sessionsInKeyRange(tx, TEST, JSON.parse(b.key_range!) as SessionKeyRange, Number.MAX_SAFE_INTEGER)).sessionIds);
    const sessionsOfAll = async () => (await Promise.all((await batches()).map(sessionsOf))).map((ids) => ids.sort());
    const completedEvents = () =>
      store.database.all<{ id: string; once_key: string }>("SELECT id, once_key FROM webhook_events WHERE type = 'session.completed' ORDER BY id");
    const sessionIdsOf = async (subscriptionId: string) => {
      const claimed = await expandAndClaim(`reader-${subscriptionId}`, LEASE, 1000);
      return claimed.filter((d) => d.subscriptionId === subscriptionId).map((d) => d.eventData.sessionId).sort();
    };

    it('an import records session.completed for exactly the sessions it makes COMPLETE, once each', async () => {
      const sub = await subscribe();
      await store.sessions.importSessions(TEST, [session(1, 'COMPLETE'), session(2, 'IN_PROGRESS'), session(3, 'COMPLETE'), session(4, 'ABANDONED')], by);
      expect(await pendingOf(sub.id)).toHaveLength(2);
      // Imported again, and one more completes: only the newcomer is an event.
      await store.sessions.importSessions(TEST, [session(1, 'COMPLETE'), session(2, 'COMPLETE'), session(3, 'COMPLETE')], by);
      expect(await sessionIdsOf(sub.id)).toEqual([sid(1), sid(2), sid(3)]);
    });

    it('a session already COMPLETE before the subscription is no event; a later status change back and forth is none either', async () => {
      await store.sessions.importSessions(TEST, [session(1, 'COMPLETE')], by);
      const sub = await subscribe();
      await store.sessions.importSessions(TEST, [session(1, 'COMPLETE'), session(2, 'COMPLETE')], by);
      await store.sessions.importSessions(TEST, [session(2, 'IN_PROGRESS')], by);
      await store.sessions.importSessions(TEST, [session(2, 'COMPLETE')], by);
      expect(await sessionIdsOf(sub.id)).toEqual([sid(2)]);
    });

    it('a session listed twice counts by its last copy', async () => {
      const sub = await subscribe();
      await store.sessions.importSessions(TEST, [session(1, 'COMPLETE'), session(1, 'IN_PROGRESS'), session(2, 'IN_PROGRESS'), session(2, 'COMPLETE')], by);
      expect(await sessionIdsOf(sub.id)).toEqual([sid(2)]);
    });

    it('filters by test and workspace; a disabled subscription gets no deliveries; without any, nothing is written', async () => {
      const all = await subscribe();
      const ofTest = await subscribe(['session.completed'], { testId: TEST });
      const ofOtherWorkspace = await subscribe(['session.completed'], { workspaceId: OTHER_WS });
      const transcriptsOnly = await subscribe(['transcript.ready']);
      const disabled = await subscribe();
      await store.webhooks.update(disabled.id, { disabled: true }, by);
      await store.sessions.importSessions(TEST, [session(1, 'COMPLETE')], by);
      await store.sessions.importSessions(OTHER_TEST, [session(2, 'COMPLETE')], by);
      expect((await pendingOf(all.id)).length).toBe(2);
      expect((await pendingOf(ofTest.id)).length).toBe(1);
      expect((await pendingOf(ofOtherWorkspace.id)).length).toBe(1);
      expect((await pendingOf(transcriptsOnly.id)).length).toBe(0);
      expect((await pendingOf(disabled.id)).length).toBe(0);
      for (const s of [all, ofTest, ofOtherWorkspace, transcriptsOnly, disabled]) await store.webhooks.delete(s.id, by);
      await store.sessions.importSessions(TEST, [session(3, 'COMPLETE')], by);
      expect(await batches()).toEqual([]);
      expect(await store.database.one('SELECT COUNT(*) AS n FROM webhook_events WHERE once_key = @k', { k: `session.completed:${sid(3)}` })).toEqual({ n: 0 });
    });

    it("an import's transaction writes one batch, the key range of its completed sessions; expanding it a chunk at a time makes an event and a delivery each", async () => {
      const sub = await subscribe();
      const many = Array.from({ length: 2 * BATCH_SESSIONS + 5 }, (_, i) => session(i + 1, i % 3 === 2 ? 'ABANDONED' : 'COMPLETE'));
      await store.sessions.importSessions(TEST, many, by);
      const completed = many.filter((x) => x.status === 'COMPLETE').map((x) => x.sessionId);
      // Nothing per session in the import: one batch, the key range of exactly the completed sessions.
      expect(await completedEvents()).toEqual([]);
      const written = await batches();
      expect(written).toHaveLength(1);
      expect(written[0]!.session_ids).toBeNull();
      expect(written[0]!.key_range!.length).toBeLessThan(200);
      expect((await sessionsOfAll()).flat().sort()).toEqual([...completed].sort());
      // A claim finds nothing before the batch is expanded; an expansion takes a chunk, the range moving past it.
      expect(await store.webhookDeliveries.claim('w', LEASE, 1)).toEqual([]);
      expect(await store.webhookBatches.expandNext()).toBe(BATCH_SESSIONS);
      expect((await sessionsOfAll()).flat().sort()).toEqual(completed.slice(BATCH_SESSIONS).sort());
      expect(await store.webhookBatches.expandNext()).toBe(completed.length - BATCH_SESSIONS);
      expect(await batches()).toEqual([]);
      const events = await completedEvents();
      expect(events.map((e) => e.once_key).sort()).toEqual(completed.map((id) => `session.completed:${id}`).sort());
      expect((await store.webhooks.listDeliveries(sub.id, { limit: 3000 })).length).toBe(completed.length);
    });

    it("a key range of exactly full chunks leaves no empty batch; a re-import's completions are named by id, a batch per chunk", async () => {
      await subscribe();
      // Two full chunks of the test's first COMPLETE sessions.
      const first = Array.from({ length: 2 * BATCH_SESSIONS }, (_, i) => session(i + 1, 'COMPLETE'));
      await store.sessions.importSessions(TEST, first, by);
      expect(await sessionsOfAll()).toEqual([first.map((x) => x.sessionId).sort()]);
      expect(await store.webhookBatches.expandNext()).toBe(BATCH_SESSIONS);
      expect(await store.webhookBatches.expandNext()).toBe(BATCH_SESSIONS);
      expect(await batches()).toEqual([]);
      expect(await store.webhookBatches.expandNext()).toBeNull();
      // Again, with more than a batch newly COMPLETE among sessions that already were (the noted sessions' key order).
      const again = [...first, ...Array.from({ length: 3 * BATCH_SESSIONS + 3 }, (_, i) => session(2 * BATCH_SESSIONS + i + 1, i % 3 === 2 ? 'IN_PROGRESS' : 'COMPLETE'))];
      await store.sessions.importSessions(TEST, again, by);
      const written = await batches();
      expect(written.every((b) => b.key_range === null)).toBe(true);
      expect(written.map((b) => (JSON.parse(b.session_ids!) as string[]).length)).toEqual([BATCH_SESSIONS, BATCH_SESSIONS, 2]);
      expect((await sessionsOfAll()).flat().sort()).toEqual(again.slice(2 * BATCH_SESSIONS).filter((x) => x.status === 'COMPLETE').map((x) => x.sessionId).sort());
    });

    it('an import expands the key ranges of its test first: a session that left its range (status, start time) before expansion is still evented', async () => {
      const sub = await subscribe();
      await store.sessions.importSessions(TEST, [1, 2, 3].map((n) => session(n, 'COMPLETE')), by);
      expect((await batches()).map((b) => b.key_range !== null)).toEqual([true]);
      // Before any expansion: one session goes back to IN_PROGRESS, another starts later.
      await store.sessions.importSessions(TEST, [session(1, 'IN_PROGRESS'), { ...session(2, 'COMPLETE'), startTime: T0 + 99 }], by);
      expect(await batches()).toEqual([]);
      expect((await completedEvents()).map((e) => e.once_key).sort()).toEqual([1, 2, 3].map((n) => `session.completed:${sid(n)}`));
      expect(await sessionIdsOf(sub.id)).toEqual([sid(1), sid(2), sid(3)]);
    });

    it('an import expands a waiting range of more than a chunk whole, a chunk at a time, before it changes a session', async () => {
      await subscribe();
      const first = Array.from({ length: 2 * BATCH_SESSIONS + 1 }, (_, i) => session(i + 1, 'COMPLETE'));
      await store.sessions.importSessions(TEST, first, by);
      // The last session of the range starts before all the others now.
      await store.sessions.importSessions(TEST, [{ ...session(2 * BATCH_SESSIONS + 1, 'COMPLETE'), startTime: T0 - 1 }], by);
      expect(await batches()).toEqual([]);
      expect((await completedEvents()).map((e) => e.once_key).sort()).toEqual(first.map((x) => `session.completed:${x.sessionId}`).sort());
    });

    it('an expansion rolled back (a crash before its COMMIT) and run again makes the same event ids; the batch waits meanwhile', async () => {
      await subscribe();
      await store.sessions.importSessions(TEST, [session(1, 'COMPLETE'), session(2, 'IN_PROGRESS'), session(3, 'COMPLETE')], by);
      const [batch] = await batches();
      // The expansion fails at its last statement (the deliveries): everything it wrote is rolled back.
      const [crash, recover] =
        store.database.dialect === 'sqlite'
          ? [["CREATE TRIGGER crash BEFORE INSERT ON webhook_deliveries BEGIN SELECT RAISE(ABORT, 'crash'); END"], ['DROP TRIGGER crash']]
          : [
              [
                "CREATE FUNCTION crash() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RAISE EXCEPTION ''crash''; END'",
                'CREATE TRIGGER crash BEFORE INSERT ON webhook_deliveries EXECUTE FUNCTION crash()',
              ],
              ['DROP TRIGGER crash ON webhook_deliveries', 'DROP FUNCTION crash()'],
            ];
      const runAll = (statements: string[]) =>
        store.database.write(null, async (tx) => {
          for (const sql of statements) await tx.run(sql);
        });
      await runAll(crash);
      await expect(store.webhookBatches.expandNext()).rejects.toThrow(/crash/);
      expect(await completedEvents()).toEqual([]);
      expect(await batches()).toEqual([batch]);
      await runAll(recover);
      clock.advance(expansionRetryDelayMs(1));
      const claimed = await expandAndClaim('w', LEASE, 10);
      const expected = [sid(1), sid(3)].map((id) => ({ id: batchEventId({ id: Number(batch!.id), createdAt: Number(batch!.created_at) }, id), once_key: `session.completed:${id}` }));
      expect(await completedEvents()).toEqual([...expected].sort((a, b) => (a.id < b.id ? -1 : 1)));
      expect(claimed.map((d) => d.eventId).sort()).toEqual(expected.map((e) => e.id).sort());
      // The same batch expanded again (its events gone) makes the same ids once more.
      await store.database.write(null, async (tx) => {
        await tx.run('DELETE FROM webhook_deliveries');
        await tx.run('DELETE FROM webhook_events');
      });
      await store.database.write(null, (tx) =>
        tx.run(
          `INSERT INTO webhook_pending_batches (type, test_id, workspace_id, session_ids, key_range, created_at)
           VALUES ('session.completed', @testId, @ws, @ids, @range, @createdAt)`,
          { testId: TEST, ws: WS, ids: batch!.session_ids, range: batch!.key_range, createdAt: batch!.created_at },
        ),
      );
      const [again] = await batches();
      await expandAll();
      const ids = (await completedEvents()).map((e) => e.id).sort();
      expect(ids).toEqual([sid(1), sid(3)].map((id) => batchEventId({ id: Number(again!.id), createdAt: Number(again!.created_at) }, id)).sort());
      expect(again!.id).not.toBe(batch!.id);
    });

    it('a batch whose expansion keeps failing is set aside, longer each time, and the batches after it are expanded meanwhile', async () => {
      await subscribe();
      await subscribe(['session.completed'], { testId: OTHER_TEST });
      await store.sessions.importSessions(TEST, [session(1, 'COMPLETE')], by);
      await store.sessions.importSessions(OTHER_TEST, [session(2, 'COMPLETE')], by);
      const [poisoned, after] = await batches();
      // Every expansion of TEST's batch fails; OTHER_TEST's succeeds.
      const [poison, cure] =
        store.database.dialect === 'sqlite'
          ? [[`CREATE TRIGGER poison BEFORE INSERT ON webhook_events WHEN NEW.test_id = '${TEST}' BEGIN SELECT RAISE(ABORT, 'poison'); END`], ['DROP TRIGGER poison']]
          : [
              [
                `CREATE FUNCTION poison() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN IF NEW.test_id = ''${TEST}'' THEN RAISE EXCEPTION ''poison''; END IF; RETURN NEW; END'`,
                'CREATE TRIGGER poison BEFORE INSERT ON webhook_events FOR EACH ROW EXECUTE FUNCTION poison()',
              ],
              ['DROP TRIGGER poison ON webhook_events', 'DROP FUNCTION poison()'],
            ];
      const runAll = (statements: string[]) =>
        store.database.write(null, async (tx) => {
          for (const sql of statements) await tx.run(sql);
        });
      const setAside = () => store.database.all('SELECT id, failures, retry_at FROM webhook_pending_batches WHERE failures > 0');
      await runAll(poison);
      await expect(store.webhookBatches.expandNext()).rejects.toThrow(`pending batch ${poisoned!.id} (failure 1): `);
      expect(await setAside()).toEqual([{ id: poisoned!.id, failures: 1, retry_at: T0 + 1000 }]);
      // The next batch goes first; then none is due.
      expect(await store.webhookBatches.expandNext()).toBe(1);
      expect(await store.webhookBatches.expandNext()).toBeNull();
      expect(await store.webhookBatches.waiting()).toBe(false);
      expect((await completedEvents()).map((e) => e.once_key)).toEqual([`session.completed:${sid(2)}`]);
      expect((await batches()).map((b) => b.id)).toEqual([poisoned!.id]);
      expect(after!.id).toBeGreaterThan(poisoned!.id);
      // Due again after a second; failing again, set aside for two.
      clock.advance(999);
      expect(await store.webhookBatches.waiting()).toBe(false);
      clock.advance(1);
      expect(await store.webhookBatches.waiting()).toBe(true);
      await expect(store.webhookBatches.expandNext()).rejects.toThrow(/failure 2\): .*poison/);
      expect(await setAside()).toEqual([{ id: poisoned!.id, failures: 2, retry_at: T0 + 1000 + 2000 }]);
      await runAll(cure);
      clock.advance(2000);
      expect(await store.webhookBatches.expandNext()).toBe(1);
      expect((await completedEvents()).map((e) => e.once_key).sort()).toEqual([sid(1), sid(2)].map((id) => `session.completed:${id}`));
      expect(await batches()).toEqual([]);
    });

    it('concurrent expansions take a batch once: one expands it, the others find none (PostgreSQL skips the locked row)', async () => {
      await subscribe();
      await store.sessions.importSessions(TEST, [1, 2, 3].map((n) => session(n, 'COMPLETE')), by);
      const expanded = await Promise.all([1, 2, 3].map(() => store.webhookBatches.expandNext()));
      expect(expanded.filter((n) => n !== null)).toEqual([3]);
      expect(await completedEvents()).toHaveLength(3);
      expect(await batches()).toEqual([]);
    });

    it('a session completed again before its first batch was expanded is still one event; a subscription gone by expansion gets none', async () => {
      const sub = await subscribe();
      await store.sessions.importSessions(TEST, [session(1, 'COMPLETE')], by);
      await store.sessions.importSessions(TEST, [session(1, 'IN_PROGRESS')], by);
      await store.sessions.importSessions(TEST, [session(1, 'COMPLETE'), session(2, 'COMPLETE')], by);
      // The first import's range was expanded by the second, before it changed the session.
      expect(await batches()).toHaveLength(1);
      await expandAll();
      expect((await completedEvents()).map((e) => e.once_key).sort()).toEqual([`session.completed:${sid(1)}`, `session.completed:${sid(2)}`]);
      expect(await sessionIdsOf(sub.id)).toEqual([sid(1), sid(2)]);
      await store.sessions.importSessions(TEST, [session(3, 'COMPLETE')], by);
      await store.webhooks.delete(sub.id, by);
      await expandAll();
      expect(await batches()).toEqual([]);
      expect((await completedEvents()).map((e) => e.once_key)).not.toContain(`session.completed:${sid(3)}`);
    });

    it('attaching a video to many sessions records video.ready for each session given one, for the subscriptions that want it', async () => {
      const sub = await subscribe(['video.ready'], { testId: TEST });
      const elsewhere = await subscribe(['video.ready'], { workspaceId: OTHER_WS });
      await store.sessions.importSessions(TEST, [1, 2, 3].map((n) => session(n, 'COMPLETE')), by);
      const objects = {
        objectKey: 'videos/ab/shared.mp4', posterKey: null, contentSha256: 'a'.repeat(64), contentType: 'video/mp4', sizeBytes: 10, durationMs: 1000,
        lastFrameMs: null, width: 640, height: 480, hasAudio: false, regions: {},
      };
      await store.videos.attachVideo(TEST, [sid(1), sid(2)], objects, by);
      // Attached again with one more: only the newcomer is an event.
      await store.videos.attachVideo(TEST, [sid(1), sid(2), sid(3)], objects, by);
      const claimed = (await expandAndClaim('w', LEASE, 10)).filter((d) => d.subscriptionId === sub.id);
      expect(claimed.map((d) => d.eventData.sessionId).sort()).toEqual([sid(1), sid(2), sid(3)]);
      expect(new Set(claimed.map((d) => d.eventId)).size).toBe(3);
      expect(claimed.every((d) => d.eventType === 'video.ready')).toBe(true);
      expect(claimed[0]!.eventData).toEqual({ sessionId: claimed[0]!.eventData.sessionId, testId: TEST, workspaceId: WS });
      expect(await pendingOf(elsewhere.id)).toEqual([]);
    });

    it('a rolled-back import records no event', async () => {
      const sub = await subscribe();
      await store.sessions.importSessions(OTHER_TEST, [session(9, 'COMPLETE')], by);
      await expect(store.sessions.importSessions(TEST, [session(1, 'COMPLETE'), session(9, 'COMPLETE')], by)).rejects.toThrow();
      expect((await pendingOf(sub.id)).map((d) => d.eventId)).toHaveLength(1);
    });

    it('claims under a lease: concurrent claims take different deliveries; a lease run out is claimed again with the same event id', async () => {
      const sub = await subscribe();
      await store.sessions.importSessions(TEST, [1, 2, 3, 4, 5].map((n) => session(n, 'COMPLETE')), by);
      // Expanded first: a claim racing the expansion (on PostgreSQL, skipping its locked batch) finds nothing due yet.
      await expandAll();
      const claims = await Promise.all([1, 2, 3, 4].map((i) => expandAndClaim(`w${i}`, LEASE, 2)));
      const ids = claims.flat().map((d) => d.eventId);
      expect(ids).toHaveLength(5);
      expect(new Set(ids).size).toBe(5);
      expect(await expandAndClaim('late', LEASE, 10)).toEqual([]);
      clock.advance(LEASE);
      const again = await expandAndClaim('next', LEASE, 10);
      expect(again.map((d) => d.eventId).sort()).toEqual([...ids].sort());
      expect(again.every((d) => d.attempt === 2 && d.subscriptionId === sub.id)).toBe(true);
      // The first owner lost its lease: its result is not recorded.
      const first = claims.flat()[0]!;
      expect(await store.webhookDeliveries.succeeded(first, first === claims[0]![0] ? 'w1' : 'w2', { responseCode: 200, durationMs: 5, error: null })).toBe(false);
    });

    it('records success, retries, giving up and skipping', async () => {
      const sub = await subscribe();
      await store.sessions.importSessions(TEST, [1, 2, 3, 4].map((n) => session(n, 'COMPLETE')), by);
      const [a, b, c, d] = await expandAndClaim('w', LEASE, 10);
      expect(await store.webhookDeliveries.failed(a!, 'w', { responseCode: 500, durationMs: 3, error: 'HTTP 500' }, { then: 'retry', at: T0 + 20_000 })).toBe(true);
      expect((await store.webhooks.get(sub.id))!.failingSince).toBe(T0);
      expect(await store.webhookDeliveries.succeeded(b!, 'w', { responseCode: 204, durationMs: 4, error: null })).toBe(true);
      expect((await store.webhooks.get(sub.id))!.failingSince).toBeNull();
      await store.webhookDeliveries.failed(c!, 'w', { responseCode: null, durationMs: 10_000, error: 'timed out' }, { then: 'give_up' });
      await store.webhookDeliveries.skipped(d!, 'w', 'not visible');
      const log = new Map((await store.webhooks.listDeliveries(sub.id, { limit: 10 })).map((x) => [x.eventId, x]));
      expect(log.get(a!.eventId)).toMatchObject({ status: 'pending', attempts: 1, responseCode: 500, nextAttemptAt: T0 + 20_000, lastError: 'HTTP 500' });
      expect(log.get(b!.eventId)).toMatchObject({ status: 'succeeded', responseCode: 204, durationMs: 4 });
      expect(log.get(c!.eventId)).toMatchObject({ status: 'failed', lastError: 'timed out' });
      expect(log.get(d!.eventId)).toMatchObject({ status: 'skipped', lastError: 'not visible' });
      expect(await expandAndClaim('w', LEASE, 10)).toEqual([]);
      clock.advance(20_000);
      const [retried] = await expandAndClaim('w', LEASE, 10);
      expect(retried).toMatchObject({ eventId: a!.eventId, attempt: 2 });
    });

    it('a failure that disables the subscription is audited; replay sends a delivery again with the same id', async () => {
      const sub = await subscribe();
      await store.sessions.importSessions(TEST, [session(1, 'COMPLETE')], by);
      const [a] = await expandAndClaim('w', LEASE, 10);
      await store.webhookDeliveries.failed(a!, 'w', { responseCode: 410, durationMs: 2, error: 'HTTP 410' }, { then: 'disable', reason: 'the receiver answered 410 Gone' });
      expect(await store.webhooks.get(sub.id)).toMatchObject({ disabledAt: T0, disabledReason: 'the receiver answered 410 Gone' });
      expect((await store.audit.list({ action: 'webhook.disable' })).map((e) => e.subject)).toEqual([sub.id]);
      expect(await store.webhooks.replay(sub.id, a!.eventId, by)).toMatchObject({ status: 'pending', attempts: 1 });
      expect((await expandAndClaim('w', LEASE, 10))[0]).toMatchObject({ eventId: a!.eventId, attempt: 2, subscriptionDisabled: true });
      expect(await store.webhooks.replay(sub.id, sid(99), by)).toBeNull();
    });

    it('rotation: both secrets sign during the grace period, then only the new one', async () => {
      const sub = await subscribe();
      await store.webhooks.rotateSecret(sub.id, 'whsec_bmV3', 24 * 3600_000, by);
      await store.webhooks.sendTest(sub.id, by);
      expect((await expandAndClaim('w', LEASE, 1))[0]!.secrets).toEqual(['whsec_bmV3', 'whsec_c2VjcmV0']);
      // A day later (the lease long gone), the claim again: the previous secret no longer signs.
      clock.advance(24 * 3600_000);
      expect((await expandAndClaim('w2', LEASE, 1))[0]!.secrets).toEqual(['whsec_bmV3']);
    });

    it('updates, lists per user, sends a test event and deletes with its deliveries', async () => {
      const sub = await subscribe(['session.completed', 'video.ready']);
      expect(sub).toMatchObject({ events: ['session.completed', 'video.ready'], testId: null, disabledAt: null });
      const updated = await store.webhooks.update(sub.id, { events: ['clip.generated'], description: 'Slack', testId: TEST }, by);
      expect(updated).toMatchObject({ events: ['clip.generated'], description: 'Slack', testId: TEST });
      expect((await store.webhooks.list({ userId })).map((s) => s.id)).toEqual([sub.id]);
      expect(await store.webhooks.list({ userId: 'someone-else' })).toEqual([]);
      const eventId = await store.webhooks.sendTest(sub.id, by);
      const [claimed] = await expandAndClaim('w', LEASE, 10);
      expect(claimed).toMatchObject({ eventId, eventType: 'webhook.test', eventData: { webhookId: sub.id } });
      expect(await store.webhooks.delete(sub.id, by)).toBe(true);
      expect(await store.webhooks.get(sub.id)).toBeNull();
      expect(await store.webhooks.delete(sub.id, by)).toBe(false);
      expect(await store.webhookDeliveries.countByStatus()).toEqual({});
    });
  });
}
