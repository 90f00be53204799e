import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Transaction } from './database.js';
import { COMPLETED_STATUS } from './store.js';

/**
 * An event id: a UUID version 7 (RFC 9562 §5.7), its leading 48 bits the time in ms, so ids
 * of a bulk write go into the indexes in order (appends, not random inserts) and sort by age.
 */
export function eventId(now: number): string {
  return uuidV7(now, randomBytes(16));
}

/**
 * An event id made again the same from the same `seed` (its "random" bits a hash of it) and
 * time: what an outbox batch's expansion gives each event, so that an expansion rolled back
 * and run again makes the same ids (and a receiver's deduplication holds).
 */
export function derivedEventId(now: number, seed: string): string {
  return uuidV7(now, createHash('sha256').update(seed).digest());
}

function uuidV7(now: number, b: Buffer): string {
  b.writeUIntBE(now, 0, 6);
  b[6] = (b[6]! & 0x0f) | 0x70;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex', 0, 16);
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
export const MATCHING = `
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

export type EventMatch = { type: WebhookEventType; testId: string; workspaceId: string | null };

/** Whether an enabled subscription wants events of `match` (the outbox is not an event log). */
export const wantedBy = async (reader: Pick<Transaction, 'one'>, match: EventMatch): Promise<boolean> =>
  (await reader.one(`SELECT 1 AS wanted ${MATCHING} LIMIT 1`, match)) !== undefined;

/**
 * Events of one type about sessions of one test, for writers that make many at once (a video
 * attached to every session of a test): the test's workspace is read and the subscriptions
 * asked once (`start` answers null when none wants the events: nothing is written), then each
 * `record` writes a chunk's events and their deliveries in two statements.
 */
export class SessionEventWriter {
  private constructor(
    private readonly tx: Transaction,
    private readonly clock: Clock,
    private readonly match: EventMatch,
  ) {}

  static async start(tx: Transaction, clock: Clock, type: WebhookEventType, testId: string): Promise<SessionEventWriter | null> {
    const match = { type, testId, workspaceId: await workspaceOf(tx, testId) };
    return (await wantedBy(tx, match)) ? new SessionEventWriter(tx, clock, match) : null;
  }

  /** An event for each of `sessionIds` (a chunk: two parameters a session), with a delivery for each subscription that wants it. */
  async record(sessionIds: readonly string[]): Promise<void> {
    if (sessionIds.length === 0) return;
    const { tx, match } = this;
    const now = this.clock.now();
    const params: Record<string, unknown> = { ...match, now };
    const events = sessionIds.map((sessionId, i) => {
      params[`i${i}`] = eventId(now);
      params[`d${i}`] = JSON.stringify(eventData({ ...match, data: { sessionId } }, match.workspaceId));
      return `(@i${i}, @type, NULL, @testId, @workspaceId, @d${i}, @now)`;
    });
    await tx.run(`INSERT INTO webhook_events (id, type, once_key, test_id, workspace_id, data, created_at) VALUES ${events.join(', ')}`, params);
    const ids = sessionIds.map((_, i) => `(@i${i})`).join(', ');
    await tx.run(
      `INSERT INTO webhook_deliveries (subscription_id, event_id, status, attempts, next_attempt_at, created_at, updated_at)
       SELECT w.id, e.column1, 'pending', 0, @now, @now, @now FROM (SELECT s.id ${MATCHING}) w CROSS JOIN (VALUES ${ids}) AS e`,
      params,
    );
  }
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
  if (!(await wantedBy(tx, match))) return null;
  const now = clock.now();
  const id = eventId(now);
  const written = await tx.run(INSERT_EVENT, { ...match, id, onceKey: input.onceKey ?? null, data: JSON.stringify(eventData(input, workspaceId)), now });
  if (written === 0) return null;
  await tx.run(FAN_OUT, { ...match, id, now });
  return id;
}

export function eventData(input: WebhookEventInput, workspaceId: string | null): WebhookEventData {
  return { ...input.data, testId: input.testId, ...(workspaceId ? { workspaceId } : {}) };
}

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

/** `@p0, @p1, …` for `values`, with the parameters they name. */
export function inList(values: readonly string[], prefix = 'p'): { sql: string; params: Record<string, string> } {
  const params: Record<string, string> = {};
  const names = values.map((v, i) => {
    params[`${prefix}${i}`] = v;
    return `@${prefix}${i}`;
  });
  return { sql: names.join(', '), params };
}

/** Sessions a batch of ids names at most, and a key range's expansion reads at a time: what one expansion transaction turns into events. */
export const BATCH_SESSIONS = 1000;

/** Sessions the import made COMPLETE, not yet evented (once-keys skip the rest at expansion). */
const COMPLETED_HERE = {
  /**
   * The test had no COMPLETE session before: every COMPLETE session it has now is new. One
   * batch names them all by key range (SessionKeyRange), not by id.
   */
  all: 'FROM sessions x WHERE x.test_id = @testId AND x.status = @complete',
  /** Otherwise: the staged sessions not COMPLETE before (noted before the import applied), COMPLETE now. */
  noted: 'FROM webhook_completing c JOIN sessions x ON x.session_id = c.session_id WHERE x.status = @complete',
};

/** A COMPLETE session's place in the sessions' primary key, after its test and status. */
type SessionKey = [startTime: number, sessionId: string];

/**
 * A run of a test's COMPLETE sessions in their primary key's order: those after `after` (from
 * the first when null) up to `upTo`. What the batch of a test's first completions names, all of
 * them in ~100 bytes where their ids took ~39 KB per 1,000: the import finds `upTo` by one seek.
 * The batch is expanded BATCH_SESSIONS sessions at a time, `after` moving on each time; an
 * import of the same test expands the test's waiting ranges first (expandKeyRangeBatches), so
 * no session leaves its run unevented.
 */
export interface SessionKeyRange {
  after: SessionKey | null;
  upTo: SessionKey;
}

const COMPLETED_KEY = '(x.start_time, x.session_id)';
const completedAfter = (after: SessionKey | null) => ({
  sql: `${COMPLETED_HERE.all}${after ? ` AND ${COMPLETED_KEY} > (@after0, @after1)` : ''}`,
  params: after ? { after0: after[0], after1: after[1] } : {},
});

/**
 * The first `limit` sessions of `testId` that `range` names, in key order, and the key of the
 * last of them when the range may hold more after it (null: none is left).
 */
export async function sessionsInKeyRange(
  tx: Transaction,
  testId: string,
  range: SessionKeyRange,
  limit: number = BATCH_SESSIONS,
): Promise<{ sessionIds: string[]; next: SessionKey | null }> {
  const { sql, params } = completedAfter(range.after);
  const rows = await tx.all<{ start_time: number | string; session_id: string }>(
    `SELECT x.start_time, x.session_id ${sql} AND ${COMPLETED_KEY} <= (@upTo0, @upTo1) ORDER BY x.start_time, x.session_id LIMIT @limit`,
    { ...params, testId, complete: COMPLETED_STATUS, upTo0: range.upTo[0], upTo1: range.upTo[1], limit },
  );
  const last = rows.length === limit ? rows.at(-1) : undefined;
  const next: SessionKey | null = last && !(Number(last.start_time) === range.upTo[0] && last.session_id === range.upTo[1]) ? [Number(last.start_time), last.session_id] : null;
  return { sessionIds: rows.map((r) => r.session_id), next };
}

/** One batch naming every COMPLETE session of the test: its last one's key, found by a seek. Resolves to how many batches (0 or 1). */
async function recordKeyRange(tx: Transaction, params: Record<string, unknown>): Promise<number> {
  const last = await tx.one<{ k0: number | string; k1: string }>(
    `SELECT x.start_time AS k0, x.session_id AS k1 ${COMPLETED_HERE.all} ORDER BY x.start_time DESC, x.session_id DESC LIMIT 1`,
    params,
  );
  if (!last) return 0;
  const range: SessionKeyRange = { after: null, upTo: [Number(last.k0), last.k1] };
  return tx.run(
    `INSERT INTO webhook_pending_batches (type, test_id, workspace_id, key_range, created_at) VALUES (@type, @testId, @workspaceId, @range, @now)`,
    { ...params, range: JSON.stringify(range) },
  );
}

const INSERT_BATCH = 'INSERT INTO webhook_pending_batches (type, test_id, workspace_id, session_ids, created_at) SELECT @type, @testId, @workspaceId';

/**
 * How each engine writes the batches of a re-import's completions, which name their sessions.
 * PostgreSQL puts every session in its chunk in one statement (a hash aggregate; a statement
 * per batch would cost a round trip each: 140 against 75 ms per 100,000 sessions). SQLite's
 * GROUP BY sorts the chunks (55-75 ms of 70-90), while its statements cost no round trip: each
 * batch is the next range of the noted sessions' key, found by a seek (26-55 ms), two
 * statements a batch.
 */
const BATCH_WRITES = {
  sqlite: {
    completingTable: 'CREATE TEMP TABLE webhook_completing (session_id TEXT PRIMARY KEY) WITHOUT ROWID',
    record: recordNotedBySeeks,
  },
  postgres: {
    completingTable: 'CREATE TEMP TABLE webhook_completing (session_id TEXT COLLATE "C" NOT NULL)',
    record: (tx: Transaction, params: Record<string, unknown>) =>
      tx.run(
        `${INSERT_BATCH}, json_agg(c.session_id)::text, @now
           FROM (SELECT x.session_id, (ROW_NUMBER() OVER () - 1) / ${BATCH_SESSIONS} AS chunk ${COMPLETED_HERE.noted}) c
          GROUP BY c.chunk`,
        params,
      ),
  },
} as const;

/** One batch per BATCH_SESSIONS noted sessions, in the order of their key: resolves to how many. */
async function recordNotedBySeeks(tx: Transaction, params: Record<string, unknown>): Promise<number> {
  const after = (first: boolean) => (first ? '' : ' AND c.session_id > @after');
  const bounds = { ...params };
  let recorded = 0;
  for (let first = true; ; first = false) {
    // The key of the next full batch's last session; none when less than a batch is left.
    const last = await tx.one<{ k: string }>(
      `SELECT c.session_id AS k ${COMPLETED_HERE.noted}${after(first)} ORDER BY c.session_id LIMIT 1 OFFSET ${BATCH_SESSIONS - 1}`,
      bounds,
    );
    recorded += await tx.run(
      `${INSERT_BATCH}, json_group_array(session_id), @now
         FROM (SELECT x.session_id ${COMPLETED_HERE.noted}${after(first)}${last ? ' AND c.session_id <= @upTo' : ''}) batch
       HAVING COUNT(*) > 0`,
      { ...bounds, upTo: last?.k },
    );
    if (!last) return recorded;
    bounds.after = last.k;
  }
}

/**
 * `session.completed` for each session an import makes COMPLETE, written in the import's
 * transaction as the outbox's compact form: one `webhook_pending_batches` row naming the key
 * range of a test's first completions (SessionKeyRange), or one per BATCH_SESSIONS sessions a
 * re-import completed, naming their ids (BATCH_WRITES). The delivery side turns each batch
 * into events and deliveries later, in its own transaction (WebhookPendingBatches): a
 * session's first completion is an event once, whatever imports it again (its once-key), and
 * one already COMPLETE before the import is none. `start` answers null when no enabled
 * subscription wants the events (nothing is read or written then); otherwise `beforeApply`
 * runs once the import's rows are staged and before they are applied, and `record` after.
 */
export class SessionCompletionEvents {
  private noted = false;

  private constructor(
    private readonly tx: Transaction,
    private readonly dialect: 'sqlite' | 'postgres',
    private readonly clock: Clock,
    private readonly match: { type: 'session.completed'; testId: string; workspaceId: string | null },
  ) {}

  static async start(tx: Transaction, dialect: 'sqlite' | 'postgres', clock: Clock, testId: string): Promise<SessionCompletionEvents | null> {
    const match = { type: 'session.completed' as const, testId, workspaceId: await workspaceOf(tx, testId) };
    if (!(await wantedBy(tx, match))) return null;
    return new SessionCompletionEvents(tx, dialect, clock, match);
  }

  /**
   * Notes which staged sessions (`staged`: a table of the import's rows, with session_id and
   * status) are not COMPLETE yet, when the test has COMPLETE sessions at all (the usual first
   * import has none: then nothing is read).
   */
  async beforeApply(staged: string): Promise<void> {
    const counted = await this.tx.one<{ n: number }>('SELECT session_count AS n FROM session_counts WHERE test_id = @testId AND status = @complete', {
      testId: this.match.testId,
      complete: COMPLETED_STATUS,
    });
    if (!counted || Number(counted.n) === 0) return;
    await this.tx.run(BATCH_WRITES[this.dialect].completingTable);
    await this.tx.run(
      `INSERT INTO webhook_completing (session_id) SELECT DISTINCT i.session_id FROM ${staged} i
        WHERE i.status = @complete AND NOT EXISTS (SELECT 1 FROM sessions x WHERE x.session_id = i.session_id AND x.status = @complete)`,
      { complete: COMPLETED_STATUS },
    );
    this.noted = true;
  }

  /** Writes the pending batches naming the sessions completed here. Resolves to how many batches. */
  async record(): Promise<number> {
    const params = { ...this.match, complete: COMPLETED_STATUS, now: this.clock.now() };
    if (!this.noted) return recordKeyRange(this.tx, params);
    const recorded = await BATCH_WRITES[this.dialect].record(this.tx, params);
    await this.tx.run('DROP TABLE webhook_completing');
    return recorded;
  }
}
