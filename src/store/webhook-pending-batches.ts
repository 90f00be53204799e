import type { Clock } from '../clock.js';
import { jsonRows, type Database, type Row, type Transaction, type WriteOptions } from './database.js';
import { derivedEventId, eventData, MATCHING, sessionsInKeyRange, wantedBy, type EventMatch, type SessionKeyRange, type WebhookEventType } from './webhook-events.js';

const BATCH = 'SELECT id, type, test_id, workspace_id, session_ids, key_range, created_at FROM webhook_pending_batches';

/**
 * The oldest due batch no other transaction holds: PostgreSQL locks it for the expansion's
 * transaction and skips one another process is expanding (SQLite's write transaction holds
 * the whole database). A batch set aside after a failure is due again at its retry_at.
 */
const NEXT_BATCH = `${BATCH} WHERE retry_at <= @now ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED`;

/** How long a batch whose expansion failed `failures` times in a row is set aside: 1 s, doubling, at most 5 minutes. */
export const expansionRetryDelayMs = (failures: number): number => Math.min(1000 * 2 ** (failures - 1), 300_000);

/** A test's batches that name key ranges, waiting (if another process is expanding one, until it is done). */
const KEY_RANGES_OF_TEST = `${BATCH} WHERE test_id = @testId AND key_range IS NOT NULL ORDER BY id FOR UPDATE`;

/**
 * An expansion's COMMIT does not wait for the disk (PostgreSQL): a crash that loses it leaves
 * the batch, expanded again to the same event ids, so a delivery already sent from the lost
 * expansion is sent again with its webhook-id, as after any crash mid-send.
 */
const EXPANSION: WriteOptions = { waitForDisk: false };

/**
 * The import's outbox, turned into events and deliveries (SessionCompletionEvents writes, in
 * the import's transaction, the key range of a test's first completions or a batch of ids per
 * chunk of a re-import's). Each batch, or each chunk of a range, is expanded in a transaction
 * of its own that also deletes the batch or moves its range on, so a crash before COMMIT
 * leaves it for the next expansion, and after it leaves nothing to repeat. Event ids
 * are derived from the batch (its time, and a hash of its id with the session's): an
 * expansion rolled back and run again makes the same ids. Subscriptions are matched now, by
 * the one rule (MATCHING); none wanting the events, the batch is dropped unwritten.
 */
export class WebhookPendingBatches {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /** Whether a batch is due (a read: an idle worker asks often). */
  async waiting(): Promise<boolean> {
    return (await this.db.one('SELECT 1 AS waiting FROM webhook_pending_batches WHERE retry_at <= @now LIMIT 1', { now: this.clock.now() })) !== undefined;
  }

  /**
   * Expands the oldest due batch no one else is expanding: resolves to how many events it
   * wrote (once-keys already used write none), or null when there was no batch to take. When
   * the expansion fails, the batch is set aside (expansionRetryDelayMs), so that one which
   * always fails does not hold back the batches after it, and the rejection names it.
   */
  async expandNext(): Promise<number | null> {
    let taken: number | undefined;
    try {
      return await this.db.write(
        null,
        async (tx) => {
          const row = await tx.one(NEXT_BATCH, { now: this.clock.now() });
          if (!row) return null;
          taken = Number(row.id);
          return expandBatch(tx, this.clock, row);
        },
        EXPANSION,
      );
    } catch (err) {
      if (taken === undefined) throw err;
      // When even this fails (the database is down), the batch is simply due at the next try.
      const failures = await this.setAside(taken).catch(() => undefined);
      throw new Error(`pending batch ${taken}${failures ? ` (failure ${failures})` : ''}: ${(err as Error).message}`, { cause: err });
    }
  }

  /** Counts a failed expansion of batch `id` and sets the batch aside: resolves to its failures in a row. */
  private setAside(id: number): Promise<number | undefined> {
    return this.db.write(null, async (tx) => {
      const row = await tx.one<{ failures: number }>('SELECT failures FROM webhook_pending_batches WHERE id = @id', { id });
      if (!row) return undefined;
      const failures = Number(row.failures) + 1;
      await tx.run('UPDATE webhook_pending_batches SET failures = @failures, retry_at = @retryAt WHERE id = @id', {
        id,
        failures,
        retryAt: this.clock.now() + expansionRetryDelayMs(failures),
      });
      return failures;
    });
  }
}

/**
 * Expands, inside an import's transaction into `testId` and before it changes any session,
 * the test's waiting batches that name key ranges: a session that left its run (another
 * status or start time) before its batch was expanded would otherwise never be evented.
 */
export async function expandKeyRangeBatches(tx: Transaction, clock: Clock, testId: string): Promise<void> {
  // Each pass expands a chunk of each range; a range is gone once its last chunk is expanded.
  for (let rows: Row[]; (rows = await tx.all(KEY_RANGES_OF_TEST, { testId })).length > 0; ) {
    for (const row of rows) await expandBatch(tx, clock, row);
  }
}

/**
 * Writes the events and deliveries of the batch's sessions, or of the next BATCH_SESSIONS of a
 * key range's, and deletes the batch, or moves its range past them when more are left: resolves
 * to how many events it wrote. None wanting the events, the batch is dropped unwritten.
 */
async function expandBatch(tx: Transaction, clock: Clock, row: Row): Promise<number> {
  const batch = { id: Number(row.id), createdAt: Number(row.created_at) };
  const match: EventMatch = { type: row.type as WebhookEventType, testId: row.test_id as string, workspaceId: (row.workspace_id as string | null) ?? null };
  const range = row.key_range === null || row.key_range === undefined ? null : (JSON.parse(row.key_range as string) as SessionKeyRange);
  const { sessionIds, next } = !(await wantedBy(tx, match))
    ? { sessionIds: [], next: null }
    : range
      ? await sessionsInKeyRange(tx, match.testId, range)
      : { sessionIds: JSON.parse(row.session_ids as string) as string[], next: null };
  if (next) await tx.run('UPDATE webhook_pending_batches SET key_range = @range WHERE id = @id', { id: batch.id, range: JSON.stringify({ ...range, after: next }) });
  else await tx.run('DELETE FROM webhook_pending_batches WHERE id = @id', { id: batch.id });
  if (sessionIds.length === 0) return 0;
  // One parameter for the batch: [event id, once-key, data] per session.
  const rows = JSON.stringify(
    sessionIds.map((sessionId) => [batchEventId(batch, sessionId), `${match.type}:${sessionId}`, JSON.stringify(eventData({ ...match, data: { sessionId } }, match.workspaceId))]),
  );
  const each = jsonRows(tx.dialect, 'rows');
  const params = { ...match, rows, createdAt: batch.createdAt, now: clock.now() };
  // (SQLite reads an upsert after a bare FROM as a join's ON: hence WHERE true.)
  const written = await tx.run(
    `INSERT INTO webhook_events (id, type, once_key, test_id, workspace_id, data, created_at)
     SELECT value ->> 0, @type, value ->> 1, @testId, @workspaceId, value ->> 2, @createdAt FROM ${each}
      WHERE true ON CONFLICT DO NOTHING`,
    params,
  );
  if (written === 0) return 0;
  // The batch's events that were written (a once-key used before wrote none): a key seek each.
  await tx.run(
    `INSERT INTO webhook_deliveries (subscription_id, event_id, status, attempts, next_attempt_at, created_at, updated_at)
     SELECT w.id, e.id, 'pending', 0, @now, @now, @now
       FROM (SELECT s.id ${MATCHING}) w CROSS JOIN ${each} JOIN webhook_events e ON e.id = value ->> 0`,
    params,
  );
  return written;
}

/** The id of the event a batch makes for `sessionId`: the same whenever the batch is expanded. */
export function batchEventId(batch: { id: number; createdAt: number }, sessionId: string): string {
  return derivedEventId(batch.createdAt, `${batch.id}:${sessionId}`);
}
