import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { OperationDeps } from '../../operations/deps.js';
import { deleteWebhook, listWebhooks, setWebhookDisabled, showWebhook, webhookDeliveryPage } from '../../operations/webhooks.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../store/webhooks.js';
import { DELIVERY_FIELDS, WEBHOOK_FIELDS } from '../../webhooks/schemas.js';
import { requireRole } from '../caller.js';
import { Nullable } from '../../results/schemas.js';
import { adminResponses, Email, Uuid } from '../schemas.js';

const OperatorWebhook = Type.Object(
  {
    ...WEBHOOK_FIELDS,
    ownerEmail: Nullable<string>('string', { description: 'The API user it belongs to (null: the user is gone).' }),
    clientId: Type.String({ description: 'The credential that created it.' }),
  },
  { additionalProperties: false, title: 'OperatorWebhook' },
);
const DeliveryPage = Type.Object(
  {
    deliveries: Type.Array(Type.Object(DELIVERY_FIELDS, { additionalProperties: false }), { description: 'Newest first.' }),
    next: Nullable<string>('string', { format: 'uuid', description: 'Pass as `before` for the next page (null: no more).' }),
  },
  { additionalProperties: false, title: 'OperatorWebhookDeliveries' },
);
const WebhookParams = Type.Object({ webhookId: Uuid });
const ListQuery = Type.Object({ user: Type.Optional(Email) }, { additionalProperties: false });
const DeliveryQuery = Type.Object(
  {
    status: Type.Optional(Type.Unsafe<DeliveryStatus>({ type: 'string', enum: [...DELIVERY_STATUSES], description: 'Only deliveries in this status.' })),
    before: Type.Optional(Type.String({ format: 'uuid', description: 'The eventId of the last delivery of the previous page.' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'At most this many (default 25).' })),
  },
  { additionalProperties: false },
);
type Params = { Params: Static<typeof WebhookParams> };
const tags = ['Webhooks'];

/**
 * API users' webhook subscriptions (`results-api webhooks`): support staff and operators, as for
 * the credentials that own them. Writes are audited with the admin (the store's webhook.* entries).
 */
export function registerWebhookRoutes(app: FastifyInstance, deps: OperationDeps): void {
  app.get<{ Querystring: Static<typeof ListQuery> }>(
    '/admin/api/webhooks',
    { schema: { tags, summary: "Every subscription (or one user's), oldest first, with its owner and whether it is disabled and why; never a secret", querystring: ListQuery, response: adminResponses({ 200: Type.Array(OperatorWebhook) }) } },
    async (request) => {
      requireRole(request, 'support');
      return listWebhooks(deps, request.query.user === undefined ? {} : { email: request.query.user });
    },
  );

  app.get<Params>(
    '/admin/api/webhooks/:webhookId',
    { schema: { tags, summary: 'One subscription', params: WebhookParams, response: adminResponses({ 200: OperatorWebhook }, [404]) } },
    async (request) => {
      requireRole(request, 'support');
      return showWebhook(deps, request.params.webhookId.toLowerCase());
    },
  );

  for (const [action, disabled] of [['disable', true], ['enable', false]] as const) {
    app.post<Params>(
      `/admin/api/webhooks/:webhookId/${action}`,
      {
        schema: {
          tags,
          summary: disabled ? 'Disable a subscription: nothing more is sent (audited)' : 'Enable a subscription again, forgetting its past failures (audited)',
          params: WebhookParams,
          response: adminResponses({ 200: OperatorWebhook }, [404]),
        },
      },
      async (request) => {
        const caller = requireRole(request, 'support');
        return setWebhookDisabled(deps, request.params.webhookId.toLowerCase(), disabled, caller);
      },
    );
  }

  app.delete<Params>(
    '/admin/api/webhooks/:webhookId',
    { schema: { tags, summary: 'Delete a subscription and its delivery log (audited)', params: WebhookParams, response: adminResponses({ 200: Type.Object({ deleted: Uuid }) }, [404]) } },
    async (request) => {
      const caller = requireRole(request, 'support');
      return deleteWebhook(deps, request.params.webhookId.toLowerCase(), caller);
    },
  );

  app.get<Params & { Querystring: Static<typeof DeliveryQuery> }>(
    '/admin/api/webhooks/:webhookId/deliveries',
    {
      schema: {
        tags,
        summary: "A page of a subscription's delivery log, newest first: status, response code, duration, attempts, event id and type",
        params: WebhookParams,
        querystring: DeliveryQuery,
        response: adminResponses({ 200: DeliveryPage }, [404]),
      },
    },
    async (request) => {
      requireRole(request, 'support');
      return webhookDeliveryPage(deps, request.params.webhookId.toLowerCase(), request.query);
    },
  );
}
