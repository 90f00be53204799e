import type { FastifyInstance } from 'fastify';
import { WEBHOOKS_SECURITY } from '../../docs/security-schemes.js';
import { TAG } from '../../docs/tags.js';
import { DeliveryList, DeliveryQuery, WEBHOOK_NOT_FOUND, webhookResponses, WebhookParams } from '../schemas.js';
import { listDeliveries, type WebhookDeps } from '../subscriptions.js';

/** GET /api/v2/webhooks/{webhookId}/deliveries: the delivery log. */
export function registerWebhookDeliveriesRoute(scope: FastifyInstance, deps: WebhookDeps): void {
  scope.get<{ Params: WebhookParams; Querystring: DeliveryQuery }>(
    '/api/v2/webhooks/:webhookId/deliveries',
    {
      schema: {
        summary: 'List the deliveries of a webhook subscription',
        description:
          'Each event sent (or to be sent) to the subscription, newest first: its status, attempts, the last response code, duration ' +
          'and error, and when the next attempt is due.',
        tags: [TAG.webhooks],
        operationId: 'listWebhookDeliveries',
        security: WEBHOOKS_SECURITY,
        params: WebhookParams,
        querystring: DeliveryQuery,
        response: webhookResponses(200, { description: 'A page of the delivery log.', schema: DeliveryList }, WEBHOOK_NOT_FOUND),
      },
    },
    async (request) => {
      const subscription = await deps.access.webhook(request.caller, request.params.webhookId);
      return listDeliveries(deps.webhooks, subscription, request.query);
    },
  );
}
