import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { audit } from './audit-log.js';
import type { Database, Row, Transaction } from './database.js';
import type { Actor } from './store.js';
import { inList, recordTestEvent, type WebhookEventType } from './webhook-events.js';

/**
 * Webhook subscriptions: each belongs to an API user and the credential that made it. The
 * signing secret is kept as given (it must sign), shown to its owner once; after a rotation
 * the previous one keeps signing until its expiry, so receivers can switch without a gap.
 */
export interface WebhookSubscription {
  id: string;
  userId: string;
  clientId: string;
  url: string;
  description: string | null;
  events: WebhookEventType[];
  testId: string | null;
  workspaceId: string | null;
  disabledAt: number | null;
  disabledReason: string | null;
  /** The first failed delivery since the last success (null: not failing). */
  failingSince: number | null;
  /** When the previous secret stops signing (null: there is none). */
  previousSecretExpiresAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface WebhookSubscriptionInput {
  userId: string;
  clientId: string;
  url: string;
  description?: string | null;
  events: readonly WebhookEventType[];
  testId?: string | null;
  workspaceId?: string | null;
  secret: string;
}

/** What an owner or an operator may change; `disabled: false` also forgets the failures. */
export interface WebhookSubscriptionPatch {
  url?: string;
  description?: string | null;
  events?: readonly WebhookEventType[];
  testId?: string | null;
  workspaceId?: string | null;
  disabled?: boolean;
}

export const DELIVERY_STATUSES = ['pending', 'delivering', 'succeeded', 'failed', 'skipped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One event's delivery to one subscription, as its log shows it. */
export interface WebhookDelivery {
  subscriptionId: string;
  /** The event's id: every attempt's webhook-id. */
  eventId: string;
  eventType: WebhookEventType;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: number | null;
  responseCode: number | null;
  durationMs: number | null;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface DeliveryFilter {
  status?: DeliveryStatus;
  /** Only deliveries created before this one (its eventId), for the next page. */
  before?: { createdAt: number; eventId: string };
  limit: number;
}

const SUBSCRIPTION = `SELECT s.id, s.user_id, s.client_id, s.url, s.description, s.test_id, s.workspace_id, s.disabled_at, s.disabled_reason,
  s.failing_since, s.previous_secret_expires_at, s.created_at, s.updated_at FROM webhook_subscriptions s`;

const subscriptionOf = (r: Row, events: WebhookEventType[]): WebhookSubscription => ({
  id: r.id as string,
  userId: r.user_id as string,
  clientId: r.client_id as string,
  url: r.url as string,
  description: (r.description as string | null) ?? null,
  events,
  testId: (r.test_id as string | null) ?? null,
  workspaceId: (r.workspace_id as string | null) ?? null,
  disabledAt: numberOrNull(r.disabled_at),
  disabledReason: (r.disabled_reason as string | null) ?? null,
  failingSince: numberOrNull(r.failing_since),
  previousSecretExpiresAt: numberOrNull(r.previous_secret_expires_at),
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

const DELIVERY = `SELECT d.subscription_id, d.event_id, e.type, d.status, d.attempts, d.next_attempt_at, d.response_code, d.duration_ms,
  d.last_error, d.created_at, d.updated_at FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id`;

const deliveryOf = (r: Row): WebhookDelivery => ({
  subscriptionId: r.subscription_id as string,
  eventId: r.event_id as string,
  eventType: r.type as WebhookEventType,
  status: r.status as DeliveryStatus,
  attempts: Number(r.attempts),
  nextAttemptAt: r.status === 'pending' ? Number(r.next_attempt_at) : null,
  responseCode: numberOrNull(r.response_code),
  durationMs: numberOrNull(r.duration_ms),
  lastError: (r.last_error as string | null) ?? null,
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

function numberOrNull(v: unknown): number | null {
  return v === null || v === undefined ? null : Number(v);
}

// Nothing a request path caches depends on subscriptions: their writes announce nothing.
export class WebhookRepository {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  create(input: WebhookSubscriptionInput, by: Actor): Promise<WebhookSubscription> {
    return this.db.write(null, async (tx) => {
      const id = randomUUID();
      const now = this.clock.now();
      await tx.run(
        `INSERT INTO webhook_subscriptions (id, user_id, client_id, url, description, test_id, workspace_id, secret, created_at, updated_at)
         VALUES (@id, @userId, @clientId, @url, @description, @testId, @workspaceId, @secret, @now, @now)`,
        { ...input, id, description: input.description ?? null, testId: input.testId ?? null, workspaceId: input.workspaceId ?? null, now },
      );
      await writeEvents(tx, id, input.events);
      await audit(tx, this.clock, by, 'webhook.create', id, { url: input.url, events: input.events, userId: input.userId });
      return (await this.read(tx, id))!;
    });
  }

  get(id: string): Promise<WebhookSubscription | null> {
    return this.read(this.db, id);
  }

  /** Subscriptions, oldest first: of one user when `userId` is given, otherwise all. */
  async list(filter: { userId?: string; limit?: number } = {}): Promise<WebhookSubscription[]> {
    const rows = await this.db.all(
      `${SUBSCRIPTION} WHERE (CAST(@userId AS TEXT) IS NULL OR s.user_id = @userId) ORDER BY s.created_at, s.id LIMIT @limit`,
      { userId: filter.userId ?? null, limit: filter.limit ?? 1000 },
    );
    const events = await this.eventsOf(this.db, rows.map((r) => r.id as string));
    return rows.map((r) => subscriptionOf(r, events.get(r.id as string) ?? []));
  }

  /** Applies `patch`; null when there is no such subscription. */
  update(id: string, patch: WebhookSubscriptionPatch, by: Actor): Promise<WebhookSubscription | null> {
    return this.db.write(null, async (tx) => {
      const before = await this.read(tx, id, true);
      if (!before) return null;
      const now = this.clock.now();
      const set = (column: string, value: unknown) => tx.run(`UPDATE webhook_subscriptions SET ${column} = @value, updated_at = @now WHERE id = @id`, { id, value, now });
      if (patch.url !== undefined) await set('url', patch.url);
      if (patch.description !== undefined) await set('description', patch.description);
      if (patch.testId !== undefined) await set('test_id', patch.testId);
      if (patch.workspaceId !== undefined) await set('workspace_id', patch.workspaceId);
      if (patch.events !== undefined) {
        await tx.run('DELETE FROM webhook_subscription_events WHERE subscription_id = @id', { id });
        await writeEvents(tx, id, patch.events);
      }
      if (patch.disabled === true && before.disabledAt === null) await this.disableIn(tx, id, 'disabled by its owner or an operator', by);
      if (patch.disabled === false && before.disabledAt !== null) {
        await tx.run(
          `UPDATE webhook_subscriptions SET disabled_at = NULL, disabled_reason = NULL, failing_since = NULL, updated_at = @now WHERE id = @id`,
          { id, now },
        );
        await audit(tx, this.clock, by, 'webhook.enable', id);
      }
      const changed = Object.keys(patch).filter((k) => k !== 'disabled' && patch[k as keyof WebhookSubscriptionPatch] !== undefined);
      if (changed.length > 0) await audit(tx, this.clock, by, 'webhook.update', id, { changed });
      return this.read(tx, id);
    });
  }

  /** Deletes the subscription with its deliveries (nothing more is sent); false when there was none. */
  delete(id: string, by: Actor): Promise<boolean> {
    return this.db.write(null, async (tx) => {
      if (!(await tx.one('SELECT 1 AS found FROM webhook_subscriptions WHERE id = @id FOR UPDATE', { id }))) return false;
      await tx.run('DELETE FROM webhook_deliveries WHERE subscription_id = @id', { id });
      await tx.run('DELETE FROM webhook_subscription_events WHERE subscription_id = @id', { id });
      await tx.run('DELETE FROM webhook_subscriptions WHERE id = @id', { id });
      await audit(tx, this.clock, by, 'webhook.delete', id);
      return true;
    });
  }

  /** Makes `secret` the signing secret; the one it replaces keeps signing for `graceMs`. */
  rotateSecret(id: string, secret: string, graceMs: number, by: Actor): Promise<WebhookSubscription | null> {
    return this.db.write(null, async (tx) => {
      if (!(await this.read(tx, id, true))) return null;
      const now = this.clock.now();
      await tx.run(
        `UPDATE webhook_subscriptions SET previous_secret = secret, previous_secret_expires_at = @expiresAt, secret = @secret, updated_at = @now
          WHERE id = @id`,
        { id, secret, expiresAt: now + graceMs, now },
      );
      await audit(tx, this.clock, by, 'webhook.rotate_secret', id, { previousExpiresAt: now + graceMs });
      return this.read(tx, id);
    });
  }

  /** Queues a `webhook.test` event for the subscription; its event id. */
  sendTest(id: string, by: Actor): Promise<string> {
    return this.db.write(null, async (tx) => {
      const eventId = await recordTestEvent(tx, this.clock, id);
      await audit(tx, this.clock, by, 'webhook.test', id, { eventId });
      return eventId;
    });
  }

  /** The subscription's deliveries, newest first. */
  async listDeliveries(subscriptionId: string, filter: DeliveryFilter): Promise<WebhookDelivery[]> {
    const rows = await this.db.all(
      `${DELIVERY} WHERE d.subscription_id = @subscriptionId AND (CAST(@status AS TEXT) IS NULL OR d.status = @status)
          AND (d.created_at, d.event_id) < (@beforeAt, @beforeId)
        ORDER BY d.created_at DESC, d.event_id DESC LIMIT @limit`,
      {
        subscriptionId,
        status: filter.status ?? null,
        beforeAt: filter.before?.createdAt ?? Number.MAX_SAFE_INTEGER,
        beforeId: filter.before?.eventId ?? '',
        limit: filter.limit,
      },
    );
    return rows.map(deliveryOf);
  }

  async getDelivery(subscriptionId: string, eventId: string): Promise<WebhookDelivery | null> {
    const r = await this.db.one(`${DELIVERY} WHERE d.subscription_id = @subscriptionId AND d.event_id = @eventId`, { subscriptionId, eventId });
    return r ? deliveryOf(r) : null;
  }

  /**
   * Sends the delivery again, with the same event id (receivers deduplicate on it): pending
   * now, its attempts counted on. Null when there is no such delivery.
   */
  replay(subscriptionId: string, eventId: string, by: Actor): Promise<WebhookDelivery | null> {
    return this.db.write(null, async (tx) => {
      const now = this.clock.now();
      const changed = await tx.run(
        `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = @now, lease_owner = NULL, lease_until = NULL, updated_at = @now
          WHERE subscription_id = @subscriptionId AND event_id = @eventId AND status <> 'delivering'`,
        { subscriptionId, eventId, now },
      );
      const r = await tx.one(`${DELIVERY} WHERE d.subscription_id = @subscriptionId AND d.event_id = @eventId`, { subscriptionId, eventId });
      if (!r) return null;
      if (changed > 0) await audit(tx, this.clock, by, 'webhook.replay', subscriptionId, { eventId });
      return deliveryOf(r);
    });
  }

  /** Disables the subscription inside `tx`, with its audit entry (what three days of failures lead to, too). */
  async disableIn(tx: Transaction, id: string, reason: string, by: Actor): Promise<void> {
    const now = this.clock.now();
    const changed = await tx.run(
      `UPDATE webhook_subscriptions SET disabled_at = @now, disabled_reason = @reason, updated_at = @now WHERE id = @id AND disabled_at IS NULL`,
      { id, reason, now },
    );
    if (changed > 0) await audit(tx, this.clock, by, 'webhook.disable', id, { reason });
  }

  private async read(reader: Pick<Transaction, 'one' | 'all'>, id: string, lock = false): Promise<WebhookSubscription | null> {
    const r = await reader.one(`${SUBSCRIPTION} WHERE s.id = @id${lock ? ' FOR UPDATE' : ''}`, { id });
    if (!r) return null;
    return subscriptionOf(r, (await this.eventsOf(reader, [id])).get(id) ?? []);
  }

  private async eventsOf(reader: Pick<Transaction, 'all'>, ids: readonly string[]): Promise<Map<string, WebhookEventType[]>> {
    const byId = new Map<string, WebhookEventType[]>();
    if (ids.length === 0) return byId;
    const list = inList(ids);
    const rows = await reader.all(`SELECT subscription_id, type FROM webhook_subscription_events WHERE subscription_id IN (${list.sql}) ORDER BY type`, list.params);
    for (const r of rows) {
      const list = byId.get(r.subscription_id as string) ?? [];
      list.push(r.type as WebhookEventType);
      byId.set(r.subscription_id as string, list);
    }
    return byId;
  }
}

async function writeEvents(tx: Transaction, id: string, events: readonly WebhookEventType[]): Promise<void> {
  for (const type of new Set(events)) {
    await tx.run('INSERT INTO webhook_subscription_events (type, subscription_id) VALUES (@type, @id)', { type, id });
  }
}
