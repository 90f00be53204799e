import type { Clock } from '../clock.js';
import { jsonRows, type Database, type WriteOptions } from './database.js';
import { derivedEventId, eventData, MATCHING, wantedBy, type EventMatch, type WebhookEventType } from './webhook-events.js';

interface PendingBatch {
  id: number;
  type: WebhookEventType;
  testId: string;
  workspaceId: string | null;
  sessionIds: string[];
  createdAt: number;
}

/**
 * The oldest batch no other transaction holds: PostgreSQL locks it for the expansion's
 * transaction and skips one another process is expanding (SQLite's write transaction holds
 * the whole database).
 */
const NEXT_BATCH = `SELECT id, type, test_id, workspace_id, session_ids, created_at FROM webhook_pending_batches
  ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED`;

/**
 * An expansion's COMMIT does not wait for the disk (PostgreSQL): a crash that loses it leaves
 * the batch, expanded again to the same event ids, so a delivery already sent from the lost
 * expansion is sent again with its webhook-id, as after any crash mid-send.
 */
const EXPANSION: WriteOptions = { waitForDisk: false };

/**
 * The import's outbox, turned into events and deliveries (SessionCompletionEvents writes a
 * batch per chunk of sessions an import completed, in the import's transaction). Each batch
 * is expanded in a transaction of its own that also deletes it, so a crash before COMMIT
 * leaves the batch for the next expansion, and after it leaves nothing to repeat. Event ids
 * are derived from the batch (its time, and a hash of its id with the session's): an
 * expansion rolled back and run again makes the same ids. Subscriptions are matched now, by
 * the one rule (MATCHING); none wanting the events, the batch is dropped unwritten.
 */
export class WebhookPendingBatches {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /** Whether a batch waits (a read: an idle worker asks often). */
  async waiting(): Promise<boolean> {
    return (await this.db.one('SELECT 1 AS waiting FROM webhook_pending_batches LIMIT 1')) !== undefined;
  }

  /**
   * Expands the oldest batch no one else is expanding: resolves to how many events it wrote
   * (once-keys already used write none), or null when there was no batch to take.
   */
  expandNext(): Promise<number | null> {
    return this.db.write(null, async (tx) => {
      const row = await tx.one(NEXT_BATCH);
      if (!row) return null;
      const batch: PendingBatch = {
        id: Number(row.id),
        type: row.type as WebhookEventType,
        testId: row.test_id as string,
        workspaceId: (row.workspace_id as string | null) ?? null,
        sessionIds: JSON.parse(row.session_ids as string) as string[],
        createdAt: Number(row.created_at),
      };
      await tx.run('DELETE FROM webhook_pending_batches WHERE id = @id', { id: batch.id });
      const match: EventMatch = { type: batch.type, testId: batch.testId, workspaceId: batch.workspaceId };
      if (!(await wantedBy(tx, match))) return 0;
      // One parameter for the batch: [event id, once-key, data] per session.
      const rows = JSON.stringify(
        batch.sessionIds.map((sessionId) => [
          batchEventId(batch, sessionId),
          `${batch.type}:${sessionId}`,
          JSON.stringify(eventData({ ...match, data: { sessionId } }, batch.workspaceId)),
        ]),
      );
      const each = jsonRows(this.db.dialect, 'rows');
      const params = { ...match, rows, createdAt: batch.createdAt, now: this.clock.now() };
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
    }, EXPANSION);
  }
}

/** The id of the event a batch makes for `sessionId`: the same whenever the batch is expanded. */
export function batchEventId(batch: { id: number; createdAt: number }, sessionId: string): string {
  return derivedEventId(batch.createdAt, `${batch.id}:${sessionId}`);
}
