import type { FastifyInstance } from 'fastify';
import { WEBHOOKS_SECURITY } from '../../docs/security-schemes.js';
import { TAG } from '../../docs/tags.js';
import { Webhook, WEBHOOK_NOT_FOUND, webhookResponses, WebhookParams } from '../schemas.js';
import { webhookView, type WebhookDeps } from '../subscriptions.js';

/** GET /api/v2/webhooks/{webhookId}: one subscription. */
export function registerWebhookRoute(scope: FastifyInstance, deps: WebhookDeps): void {
  scope.get<{ Params: WebhookParams }>(
    '/api/v2/webhooks/:webhookId',
    {
      schema: {
        summary: 'Get a webhook subscription',
        description: 'One of the caller\'s subscriptions: its events, filters, whether it is enabled, and since when it fails, if it does.',
        tags: [TAG.webhooks],
        operationId: 'getWebhook',
        security: WEBHOOKS_SECURITY,
        params: WebhookParams,
        response: webhookResponses(200, { description: 'The subscription.', schema: Webhook }, WEBHOOK_NOT_FOUND),
      },
    },
    async (request) => webhookView(await deps.access.webhook(request.caller, request.params.webhookId)),
  );
}
