import type { FastifyInstance } from 'fastify';
import { WEBHOOKS_SECURITY } from '../../docs/security-schemes.js';
import { TAG } from '../../docs/tags.js';
import { webhookResponses, WebhookList } from '../schemas.js';
import { webhookView, type WebhookDeps } from '../subscriptions.js';

/** GET /api/v2/webhooks: the caller's user's subscriptions. */
export function registerWebhooksListRoute(scope: FastifyInstance, deps: WebhookDeps): void {
  scope.get(
    '/api/v2/webhooks',
    {
      schema: {
        summary: 'List webhook subscriptions',
        description: "The subscriptions of the caller's user (made with any of its credentials), oldest first, never their secrets.",
        tags: [TAG.webhooks],
        operationId: 'listWebhooks',
        security: WEBHOOKS_SECURITY,
        response: webhookResponses(200, { description: 'The subscriptions.', schema: WebhookList }),
      },
    },
    async (request) => ({ webhooks: (await deps.webhooks.list({ userId: request.caller.userId })).map(webhookView) }),
  );
}
