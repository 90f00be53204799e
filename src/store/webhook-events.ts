import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Reader, Transaction } from './database.js';
import { COMPLETED_STATUS, type SessionInput } from './store.js';

/**
 * An event id: a UUID version 7 (RFC 9562 §5.7), its leading 48 bits the time in ms, so ids
 * of a bulk write go into the indexes in order (appends, not random inserts) and sort by age.
 */
export function eventId(now: number): string {
  const b = randomBytes(16);
  b.writeUIntBE(now, 0, 6);
  b[6] = (b[6]! & 0x0f) | 0x70;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Every event a subscription may ask for. `webhook.test` is only ever sent on request. */
export const WEBHOOK_EVENT_TYPES = [
  'session.completed',
  'transcript.ready',
  'video.ready',
  'clip.generated',
  'highlightreel.generated',
  'qxscores.updated',
  'webhook.test',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The ids an event carries, in the API's own names (the receiver fetches the rest with its token). */
export interface WebhookEventData {
  sessionId?: string;
  testId?: string;
  workspaceId?: string;
  clipUuid?: string;
  reelId?: string;
  webhookId?: string;
}

export interface WebhookEventInput {
  type: WebhookEventType;
  /** The test the event is about; with its workspace, what a subscription's filters match. */
  testId: string;
  data: WebhookEventData;
  /** When set, the event happens at most once under this key, whatever writes it again. */
  onceKey?: string;
}

/** Subscriptions that want `type` for a test of `workspaceId`: the one matching rule, in SQL. */
const MATCHING = `
  FROM webhook_subscription_events se JOIN webhook_subscriptions s ON s.id = se.subscription_id
 WHERE se.type = @type AND s.disabled_at IS NULL
   AND (s.test_id IS NULL OR s.test_id = @testId) AND (s.workspace_id IS NULL OR s.workspace_id = @workspaceId)`;

const INSERT_EVENT = `INSERT INTO webhook_events (id, type, once_key, test_id, workspace_id, data, created_at)
  VALUES (@id, @type, @onceKey, @testId, @workspaceId, @data, @now) ON CONFLICT DO NOTHING`;

const FAN_OUT = `INSERT INTO webhook_deliveries (subscription_id, event_id, status, attempts, next_attempt_at, created_at, updated_at)
  SELECT s.id, @id, 'pending', 0, @now, @now, @now ${MATCHING}`;

/** The workspace of a test (events name it; subscriptions may filter by it). */
async function workspaceOf(tx: Transaction, testId: string): Promise<string | null> {
  const r = await tx.one<{ workspace_id: string }>('SELECT workspace_id FROM tests WHERE id = @testId', { testId });
  return r?.workspace_id ?? null;
}

/**
 * The outbox's writer, for whatever repository makes a change that subscriptions may want:
 * run inside that change's transaction, so the event exists exactly when the change does and
 * a crash after COMMIT loses nothing. Writes nothing when no enabled subscription wants the
 * event (the outbox is not an event log), and nothing again for an `onceKey` already used.
 * Resolves to the event's id, or null when none was written.
 */
export async function recordWebhookEvent(tx: Transaction, clock: Clock, input: WebhookEventInput): Promise<string | null> {
  const workspaceId = await workspaceOf(tx, input.testId);
  const match = { type: input.type, testId: input.testId, workspaceId };
  if (!(await tx.one(`SELECT 1 AS wanted ${MATCHING} LIMIT 1`, match))) return null;
  const now = clock.now();
  const id = eventId(now);
  const written = await tx.run(INSERT_EVENT, { ...match, id, onceKey: input.onceKey ?? null, data: JSON.stringify(eventData(input, workspaceId)), now });
  if (written === 0) return null;
  await tx.run(FAN_OUT, { ...match, id, now });
  return id;
}

function eventData(input: WebhookEventInput, workspaceId: string | null): WebhookEventData {
  return { ...input.data, testId: input.testId, ...(workspaceId ? { workspaceId } : {}) };
}

/** Whether any enabled subscription wants `type` for the test: lets a bulk writer skip the work. */
export async function webhookEventWanted(reader: Pick<Transaction, 'one'>, type: WebhookEventType, testId: string): Promise<boolean> {
  const test = await reader.one<{ workspace_id: string }>('SELECT workspace_id FROM tests WHERE id = @testId', { testId });
  if (!test) return false;
  return (await reader.one(`SELECT 1 AS wanted ${MATCHING} LIMIT 1`, { type, testId, workspaceId: test.workspace_id })) !== undefined;
}

/** The once-key of a session's first completion. */
export const sessionCompletedKey = (sessionId: string) => `session.completed:${sessionId}`;

/**
 * A `webhook.test` event for one subscription (its "send a test event" button), whatever
 * events it asked for, unless it is disabled.
 */
export async function recordTestEvent(tx: Transaction, clock: Clock, subscriptionId: string): Promise<string> {
  const now = clock.now();
  const id = eventId(now);
  const s = await tx.one<{ test_id: string | null; workspace_id: string | null }>(
    'SELECT test_id, workspace_id FROM webhook_subscriptions WHERE id = @subscriptionId',
    { subscriptionId },
  );
  const data: WebhookEventData = { webhookId: subscriptionId };
  await tx.run(INSERT_EVENT, {
    id,
    type: 'webhook.test',
    onceKey: null,
    testId: s?.test_id ?? null,
    workspaceId: s?.workspace_id ?? null,
    data: JSON.stringify(data),
    now,
  });
  await tx.run(
    `INSERT INTO webhook_deliveries (subscription_id, event_id, status, attempts, next_attempt_at, created_at, updated_at)
     VALUES (@subscriptionId, @id, 'pending', 0, @now, @now, @now)`,
    { subscriptionId, id, now },
  );
  return id;
}

/** Rows per multi-row statement of a bulk write (well under both engines' parameter limits). */
export const WEBHOOK_CHUNK = 500;

/** `@p0, @p1, …` for `values`, with the parameters they name. */
export function inList(values: readonly string[], prefix = 'p'): { sql: string; params: Record<string, string> } {
  const params: Record<string, string> = {};
  const names = values.map((v, i) => {
    params[`${prefix}${i}`] = v;
    return `@${prefix}${i}`;
  });
  return { sql: names.join(', '), params };
}

/**
 * `session.completed` for each of `sessionIds` (sessions of `testId` that an import just
 * made COMPLETE, as newlyCompleted found them), in the import's transaction and set-wise: a
 * session's first completion is an event once, whatever imports it again (its once-key).
 */
export async function recordSessionCompletions(tx: Transaction, clock: Clock, testId: string, sessionIds: readonly string[]): Promise<number> {
  const workspaceId = await workspaceOf(tx, testId);
  const match = { type: 'session.completed', testId, workspaceId };
  if (sessionIds.length === 0) return 0;
  const subscriptions = (await tx.all<{ id: string }>(`SELECT s.id ${MATCHING}`, match)).map((r) => r.id);
  if (subscriptions.length === 0) return 0;
  const now = clock.now();
  let recorded = 0;
  for (let i = 0; i < sessionIds.length; i += WEBHOOK_CHUNK) {
    const complete = sessionIds.slice(i, i + WEBHOOK_CHUNK);
    const params: Record<string, unknown> = { ...match, now };
    const rows = complete.map((sessionId, j) => {
      params[`i${j}`] = eventId(now);
      params[`k${j}`] = sessionCompletedKey(sessionId);
      params[`d${j}`] = JSON.stringify(eventData({ type: 'session.completed', testId, data: { sessionId } }, workspaceId));
      return `(@i${j}, @type, @k${j}, @testId, @workspaceId, @d${j}, @now)`;
    });
    const written = await tx.all<{ id: string }>(
      `INSERT INTO webhook_events (id, type, once_key, test_id, workspace_id, data, created_at) VALUES ${rows.join(', ')}
       ON CONFLICT DO NOTHING RETURNING id`,
      params,
    );
    recorded += written.length;
    for (const subscriptionId of subscriptions) await fanOut(tx, subscriptionId, written.map((r) => r.id), now);
  }
  return recorded;
}

/** A pending delivery of each of `eventIds` to one subscription, in one statement. */
async function fanOut(tx: Transaction, subscriptionId: string, eventIds: readonly string[], now: number): Promise<void> {
  if (eventIds.length === 0) return;
  const ids = inList(eventIds);
  const rows = Object.keys(ids.params).map((name) => `(@subscriptionId, @${name}, 'pending', 0, @now, @now, @now)`);
  await tx.run(
    `INSERT INTO webhook_deliveries (subscription_id, event_id, status, attempts, next_attempt_at, created_at, updated_at) VALUES ${rows.join(', ')}`,
    { ...ids.params, subscriptionId, now },
  );
}

/**
 * Passes `batches` through, keeping in `into` the sessions the import makes COMPLETE: COMPLETE
 * in the file (by their last copy: a later one of another status takes a session out) and not
 * COMPLETE before the import (read from the committed database as each batch goes by, a
 * statement per WEBHOOK_CHUNK sessions): what recordSessionCompletions then records.
 */
export async function* newlyCompleted(
  reader: Reader,
  testId: string,
  batches: AsyncIterable<readonly SessionInput[]>,
  into: Set<string>,
): AsyncGenerator<readonly SessionInput[]> {
  // A session COMPLETE before the import is one of this test's (another test's fails the
  // import): a test with none, the usual first import, needs no reads at all.
  const counted = await reader.one<{ n: number }>('SELECT session_count AS n FROM session_counts WHERE test_id = @testId AND status = @complete', {
    testId,
    complete: COMPLETED_STATUS,
  });
  const noneBefore = !counted || Number(counted.n) === 0;
  for await (const batch of batches) {
    const complete = batch.filter((s) => s.status === COMPLETED_STATUS).map((s) => s.sessionId);
    const wasComplete = noneBefore ? new Set<string>() : await completeAmong(reader, complete);
    // In file order: the last copy of a session decides.
    for (const s of batch) {
      if (s.status === COMPLETED_STATUS && !wasComplete.has(s.sessionId)) into.add(s.sessionId);
      else into.delete(s.sessionId);
    }
    yield batch;
  }
}

/** Which of `sessionIds` are COMPLETE in the committed database (a statement per WEBHOOK_CHUNK). */
async function completeAmong(reader: Reader, sessionIds: readonly string[]): Promise<Set<string>> {
  const complete = new Set<string>();
  for (let i = 0; i < sessionIds.length; i += WEBHOOK_CHUNK) {
    const ids = inList(sessionIds.slice(i, i + WEBHOOK_CHUNK));
    const rows = await reader.all<{ session_id: string }>(`SELECT session_id FROM sessions WHERE session_id IN (${ids.sql}) AND status = @complete`, {
      ...ids.params,
      complete: COMPLETED_STATUS,
    });
    for (const r of rows) complete.add(r.session_id);
  }
  return complete;
}
