import { conflict } from '../store/conflicts.js';
import type { Actor } from '../store/store.js';
import type { DeliveryStatus, WebhookSubscription } from '../store/webhooks.js';
import { deliveryView, listDeliveries, webhookView } from '../webhooks/subscriptions.js';
import type { OperationDeps } from './deps.js';

type Deps = Pick<OperationDeps, 'store'>;

/** A subscription as operators see it: its owner's email besides what the owner sees (never its secret). */
async function operatorView(d: Deps, s: WebhookSubscription) {
  const owner = (await d.store.credentials.listUsers()).find((u) => u.id === s.userId);
  return { ...webhookView(s), ownerEmail: owner?.email ?? null, clientId: s.clientId };
}

async function requireWebhook(d: Deps, webhookId: string): Promise<WebhookSubscription> {
  const s = await d.store.webhooks.get(webhookId);
  if (!s) throw conflict.noWebhook(webhookId);
  return s;
}

/** Every subscription, or one user's (by email), oldest first. */
export async function listWebhooks(d: Deps, filter: { email?: string } = {}) {
  let userId: string | undefined;
  if (filter.email !== undefined) {
    const user = await d.store.credentials.findUserByEmail(filter.email);
    if (!user) return [];
    userId = user.id;
  }
  const users = new Map((await d.store.credentials.listUsers()).map((u) => [u.id, u.email]));
  return (await d.store.webhooks.list(userId === undefined ? {} : { userId })).map((s) => ({
    ...webhookView(s),
    ownerEmail: users.get(s.userId) ?? null,
    clientId: s.clientId,
  }));
}

export const showWebhook = async (d: Deps, webhookId: string) => operatorView(d, await requireWebhook(d, webhookId));

/** Disables (nothing more is sent) or enables (failures forgotten) a subscription, audited. */
export async function setWebhookDisabled(d: Deps, webhookId: string, disabled: boolean, by: Actor) {
  const updated = await d.store.webhooks.update(webhookId, { disabled }, by);
  if (!updated) throw conflict.noWebhook(webhookId);
  return operatorView(d, updated);
}

export async function deleteWebhook(d: Deps, webhookId: string, by: Actor): Promise<{ deleted: string }> {
  if (!(await d.store.webhooks.delete(webhookId, by))) throw conflict.noWebhook(webhookId);
  return { deleted: webhookId };
}

/** The newest deliveries of a subscription (its delivery log). */
export async function webhookDeliveries(d: Deps, webhookId: string, filter: { status?: DeliveryStatus; limit: number }) {
  await requireWebhook(d, webhookId);
  return (await d.store.webhooks.listDeliveries(webhookId, filter)).map(deliveryView);
}

/** A page of a subscription's delivery log, newest first, as its owner pages it (`before`: the last eventId seen). */
export async function webhookDeliveryPage(d: Deps, webhookId: string, query: { status?: DeliveryStatus; before?: string; limit?: number }) {
  return listDeliveries(d.store.webhooks, await requireWebhook(d, webhookId), query);
}
