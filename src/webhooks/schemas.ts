import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { EXTENSION } from '../docs/extension.js';
import { API_HEADERS, apiResponses } from '../results/responses.js';
import { Nullable, Uuid } from '../results/schemas.js';
import { DELIVERY_STATUSES } from '../store/webhooks.js';
import { WEBHOOK_EVENT_TYPES } from '../store/webhook-events.js';
import { MAX_TARGET_URL_LENGTH } from './target-policy.js';

/** Event types a subscription may ask for (`webhook.test` is sent on request, whatever it asked for). */
export const SUBSCRIBABLE_EVENTS = WEBHOOK_EVENT_TYPES.filter((t) => t !== 'webhook.test');

const EventType = Type.Unsafe<(typeof WEBHOOK_EVENT_TYPES)[number]>({ type: 'string', enum: [...SUBSCRIBABLE_EVENTS] });
const Time = (description: string) => Type.String({ format: 'date-time', description });
const NullableTime = (description: string) => Nullable<string>('string', { format: 'date-time', description });

export const WebhookParams = Type.Object({ webhookId: Uuid('The webhook subscription.') }, EXTENSION);
export type WebhookParams = Static<typeof WebhookParams>;

export const DeliveryParams = Type.Object(
  { webhookId: Uuid('The webhook subscription.'), eventId: Uuid('The delivered event (its webhook-id).') },
  EXTENSION,
);
export type DeliveryParams = Static<typeof DeliveryParams>;

const Url = Type.String({
  minLength: 1,
  maxLength: MAX_TARGET_URL_LENGTH,
  description: 'Where events are POSTed: https, at a public address (checked now and again at every delivery).',
});
const Events = Type.Array(EventType, { minItems: 1, maxItems: SUBSCRIBABLE_EVENTS.length, uniqueItems: true, description: 'The event types to send.' });
const Description = Type.String({ maxLength: 500, description: 'A note for people, e.g. where the events go.' });

export const CreateWebhookBody = Type.Object(
  {
    url: Url,
    events: Events,
    testId: Type.Optional(Uuid('Only events of this test (one of the caller\'s).')),
    workspaceId: Type.Optional(Uuid('Only events of this workspace (one where the caller is a member).')),
    description: Type.Optional(Description),
  },
  { additionalProperties: false, ...EXTENSION },
);
export type CreateWebhookBody = Static<typeof CreateWebhookBody>;

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    testId: Type.Optional(Nullable<string>('string', { format: 'uuid', description: 'Only events of this test; null: any test.' })),
    workspaceId: Type.Optional(Nullable<string>('string', { format: 'uuid', description: 'Only events of this workspace; null: any.' })),
    description: Type.Optional(Nullable<string>('string', { maxLength: 500, description: 'A note for people; null removes it.' })),
    disabled: Type.Optional(Type.Boolean({ description: 'true stops deliveries; false resumes them and forgets past failures.' })),
  },
  { additionalProperties: false, minProperties: 1, ...EXTENSION },
);
export type UpdateWebhookBody = Static<typeof UpdateWebhookBody>;

/** A subscription's fields, shared by the owner's view and the operators' (admin API). */
export const WEBHOOK_FIELDS = {
  id: Uuid('The subscription.'),
  url: Type.String({ description: 'Where events are sent.' }),
  description: Nullable<string>('string', { description: 'A note for people.' }),
  events: Type.Array(EventType, { description: 'The event types sent.' }),
  testId: Nullable<string>('string', { format: 'uuid', description: 'Only events of this test (null: any).' }),
  workspaceId: Nullable<string>('string', { format: 'uuid', description: 'Only events of this workspace (null: any).' }),
  status: Type.Unsafe<'enabled' | 'disabled'>({ type: 'string', enum: ['enabled', 'disabled'], description: 'disabled: nothing is sent.' }),
  disabledAt: NullableTime('When it was disabled.'),
  disabledReason: Nullable<string>('string', { description: 'Why: by its owner or an operator, 410 Gone, or three days of failures.' }),
  failingSince: NullableTime('The first failed delivery since the last success (null: not failing). After three days it is disabled.'),
  previousSecretExpiresAt: NullableTime('After a rotation: until when the previous secret signs too.'),
  createdAt: Time('When it was created.'),
  updatedAt: Time('When it last changed.'),
};

export const Webhook = Type.Object(WEBHOOK_FIELDS, { additionalProperties: false, title: 'Webhook', ...EXTENSION });
export type Webhook = Static<typeof Webhook>;

export const WebhookWithSecret = Type.Object(
  { ...WEBHOOK_FIELDS, secret: Type.String({ pattern: '^whsec_', description: 'The signing secret (Standard Webhooks), shown this once.' }) },
  { additionalProperties: false, title: 'WebhookWithSecret', ...EXTENSION },
);

export const WebhookList = Type.Object(
  { webhooks: Type.Array(Webhook, { description: "The caller's subscriptions, oldest first; never their secrets." }) },
  { additionalProperties: false, ...EXTENSION },
);

/** A delivery's fields, shared by the owner's delivery log and the operators' (admin API). */
export const DELIVERY_FIELDS = {
  eventId: Uuid('The event: the webhook-id of every attempt.'),
  type: Type.Unsafe<(typeof WEBHOOK_EVENT_TYPES)[number]>({ type: 'string', enum: [...WEBHOOK_EVENT_TYPES], description: 'The event type.' }),
  status: Type.Unsafe<string>({ type: 'string', enum: [...DELIVERY_STATUSES], description: 'pending (an attempt is due at nextAttemptAt), delivering, succeeded, failed (gave up after three days), skipped (not sent: the owner may no longer see it, or the subscription is disabled).' }),
  attempts: Type.Integer({ minimum: 0, description: 'Attempts made.' }),
  nextAttemptAt: NullableTime('When the next attempt is due (pending only).'),
  responseCode: Nullable<number>('integer', { description: "The receiver's last HTTP status (null: no answer)." }),
  durationMs: Nullable<number>('integer', { description: 'How long the last attempt took.' }),
  error: Nullable<string>('string', { description: 'Why the last attempt failed or was skipped.' }),
  createdAt: Time('When the event was queued for this subscription.'),
  updatedAt: Time('When the last attempt ended.'),
};

export const Delivery = Type.Object(DELIVERY_FIELDS, { additionalProperties: false, title: 'WebhookDelivery', ...EXTENSION });

export const DeliveryList = Type.Object(
  {
    deliveries: Type.Array(Delivery, { description: 'Newest first.' }),
    next: Nullable<string>('string', { format: 'uuid', description: 'Pass as `before` for the next page (null: no more).' }),
  },
  { additionalProperties: false, ...EXTENSION },
);

export const DeliveryQuery = Type.Object(
  {
    status: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: [...DELIVERY_STATUSES], description: 'Only deliveries in this status.' })),
    before: Type.Optional(Uuid('The eventId of the last delivery of the previous page.')),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'At most this many (default 25).' })),
  },
  { additionalProperties: false, ...EXTENSION },
);
export type DeliveryQuery = Static<typeof DeliveryQuery>;

export const TestEvent = Type.Object({ eventId: Uuid('The webhook.test event queued (its webhook-id).') }, { additionalProperties: false, ...EXTENSION });

/** apiResponses with the success under `status` (201, 202) instead of 200. */
export function webhookResponses(status: 200 | 201 | 202, ok: { description: string; schema: TSchema }, notFound?: string) {
  const { 200: success, ...refusals } = apiResponses(ok, notFound ? { notFound } : {});
  return { [status]: success, ...refusals };
}

/** 204: done, nothing to say. */
export function noContentResponses(notFound: string) {
  const { 200: _success, ...refusals } = apiResponses({ description: '', schema: Type.Null() }, { notFound });
  return { 204: { description: 'Done.', type: 'null', headers: API_HEADERS }, ...refusals };
}

export const WEBHOOK_NOT_FOUND = "Webhook not found: no such subscription, or another user's (the same answer for both).";

