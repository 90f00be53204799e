import { isIP } from 'node:net';
import type { Caller } from '../access/caller.js';
import type { ResourceAccess } from '../access/resource-access.js';
import { apiErrors } from '../errors.js';
import { isoTime } from '../iso-time.js';
import type { Actor } from '../store/store.js';
import type { WebhookEventType } from '../store/webhook-events.js';
import type { WebhookDelivery, WebhookRepository, WebhookSubscription } from '../store/webhooks.js';
import type { CreateWebhookBody, UpdateWebhookBody } from './schemas.js';
import { newSigningSecret } from './signing.js';
import { checkTargetUrl, hostOf, resolveTarget, TargetRefusedError, type TargetPolicy } from './target-policy.js';

/** What the webhooks extension's routes need. */
export interface WebhookDeps {
  access: ResourceAccess;
  webhooks: WebhookRepository;
  policy: TargetPolicy;
}

/** How long a rotated-out signing secret keeps signing: receivers switch without a gap. */
export const SECRET_ROTATION_GRACE_MS = 24 * 3600_000;

const optionalTime = (ms: number | null) => (ms === null ? null : isoTime(ms));

/** A subscription as its owner and operators see it (never its secret). */
export function webhookView(s: WebhookSubscription) {
  return {
    id: s.id,
    url: s.url,
    description: s.description,
    events: s.events,
    testId: s.testId,
    workspaceId: s.workspaceId,
    status: s.disabledAt === null ? ('enabled' as const) : ('disabled' as const),
    disabledAt: optionalTime(s.disabledAt),
    disabledReason: s.disabledReason,
    failingSince: optionalTime(s.failingSince),
    previousSecretExpiresAt: optionalTime(s.previousSecretExpiresAt),
    createdAt: isoTime(s.createdAt),
    updatedAt: isoTime(s.updatedAt),
  };
}

export function deliveryView(d: WebhookDelivery) {
  return {
    eventId: d.eventId,
    type: d.eventType,
    status: d.status,
    attempts: d.attempts,
    nextAttemptAt: optionalTime(d.nextAttemptAt),
    responseCode: d.responseCode,
    durationMs: d.durationMs,
    error: d.lastError,
    createdAt: isoTime(d.createdAt),
    updatedAt: isoTime(d.updatedAt),
  };
}

/**
 * Refuses a target the policy does not allow, as written and, for a name, as it resolves
 * now (it is checked again at every delivery): a 400 naming the rule. A name that does not
 * resolve yet is accepted: its deliveries fail until it does.
 */
export async function requireAllowedTarget(url: string, policy: TargetPolicy): Promise<void> {
  const checked = checkTargetUrl(url, policy);
  if (!checked.ok) throw apiErrors.invalidParameter(`url: ${checked.reason}.`);
  const host = hostOf(checked.url);
  if (policy.allowPrivate || isIP(host)) return;
  try {
    await resolveTarget(host, policy);
  } catch (err) {
    if (err instanceof TargetRefusedError && !err.unresolved) throw apiErrors.invalidParameter(`url: ${err.message}.`);
    if (!(err instanceof TargetRefusedError)) throw err;
  }
}

/** The filters a subscription names must be the caller's own to see (the same 404 as reading them). */
async function requireVisibleFilters(deps: WebhookDeps, caller: Caller, filters: { testId?: string | null; workspaceId?: string | null }) {
  const testId = filters.testId ? (await deps.access.test(caller, filters.testId, 'studies')).id : filters.testId;
  const workspaceId = filters.workspaceId ? (await deps.access.workspace(caller, filters.workspaceId)).id : filters.workspaceId;
  return { testId, workspaceId };
}

export const apiActor = (caller: Caller): Actor => ({ actor: `api:${caller.clientId}` });

/** Creates a subscription for the caller; the answer carries its secret, this once. */
export async function createWebhook(deps: WebhookDeps, caller: Caller, body: CreateWebhookBody) {
  await requireAllowedTarget(body.url, deps.policy);
  const filters = await requireVisibleFilters(deps, caller, body);
  const secret = newSigningSecret();
  const created = await deps.webhooks.create(
    {
      userId: caller.userId,
      clientId: caller.clientId,
      url: body.url,
      description: body.description ?? null,
      events: body.events as WebhookEventType[],
      testId: filters.testId ?? null,
      workspaceId: filters.workspaceId ?? null,
      secret,
    },
    apiActor(caller),
  );
  return { ...webhookView(created), secret };
}

export async function updateWebhook(deps: WebhookDeps, caller: Caller, subscription: WebhookSubscription, body: UpdateWebhookBody) {
  if (body.url !== undefined) await requireAllowedTarget(body.url, deps.policy);
  const filters = await requireVisibleFilters(deps, caller, body);
  const updated = await deps.webhooks.update(
    subscription.id,
    {
      ...(body.url !== undefined ? { url: body.url } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
      ...(body.events !== undefined ? { events: body.events as WebhookEventType[] } : {}),
      ...(filters.testId !== undefined ? { testId: filters.testId } : {}),
      ...(filters.workspaceId !== undefined ? { workspaceId: filters.workspaceId } : {}),
      ...(body.disabled !== undefined ? { disabled: body.disabled } : {}),
    },
    apiActor(caller),
  );
  if (!updated) throw apiErrors.webhookNotFound(`webhook ${subscription.id} deleted meanwhile`);
  return webhookView(updated);
}

/** A new signing secret; the previous one signs too for SECRET_ROTATION_GRACE_MS. */
export async function rotateWebhookSecret(webhooks: WebhookRepository, subscription: WebhookSubscription, by: Actor) {
  const secret = newSigningSecret();
  const rotated = await webhooks.rotateSecret(subscription.id, secret, SECRET_ROTATION_GRACE_MS, by);
  if (!rotated) throw apiErrors.webhookNotFound(`webhook ${subscription.id} deleted meanwhile`);
  return { ...webhookView(rotated), secret };
}

/** A page of the subscription's delivery log, newest first. */
export async function listDeliveries(
  webhooks: WebhookRepository,
  subscription: WebhookSubscription,
  query: { status?: string; before?: string; limit?: number },
) {
  const limit = query.limit ?? 25;
  let before: { createdAt: number; eventId: string } | undefined;
  if (query.before) {
    const from = await webhooks.getDelivery(subscription.id, query.before.toLowerCase());
    if (!from) throw apiErrors.invalidParameter('before: no delivery of this subscription has that eventId.');
    before = { createdAt: from.createdAt, eventId: from.eventId };
  }
  const page = await webhooks.listDeliveries(subscription.id, {
    limit: limit + 1,
    ...(query.status ? { status: query.status as WebhookDelivery['status'] } : {}),
    ...(before ? { before } : {}),
  });
  const shown = page.slice(0, limit);
  return { deliveries: shown.map(deliveryView), next: page.length > limit ? shown[shown.length - 1]!.eventId : null };
}
