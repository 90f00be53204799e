import type { FastifyInstance } from 'fastify';
import { WEBHOOKS_SECURITY } from '../../docs/security-schemes.js';
import { TAG } from '../../docs/tags.js';
import { UpdateWebhookBody, Webhook, WEBHOOK_NOT_FOUND, webhookResponses, WebhookParams } from '../schemas.js';
import { updateWebhook, type WebhookDeps } from '../subscriptions.js';

/** PATCH /api/v2/webhooks/{webhookId}: changes a subscription. */
export function registerWebhookUpdateRoute(scope: FastifyInstance, deps: WebhookDeps): void {
  scope.patch<{ Params: WebhookParams; Body: UpdateWebhookBody }>(
    '/api/v2/webhooks/:webhookId',
    {
      schema: {
        summary: 'Update a webhook subscription',
        description:
          'Changes the fields given: url (checked as on creation), events, the test or workspace filter (null removes it), the ' +
          'description, or `disabled` (false resumes a disabled subscription and forgets its failures).',
        tags: [TAG.webhooks],
        operationId: 'updateWebhook',
        security: WEBHOOKS_SECURITY,
        params: WebhookParams,
        body: UpdateWebhookBody,
        response: webhookResponses(200, { description: 'The subscription as changed.', schema: Webhook }, WEBHOOK_NOT_FOUND),
      },
    },
    async (request) => {
      const subscription = await deps.access.webhook(request.caller, request.params.webhookId);
      return updateWebhook(deps, request.caller, subscription, request.body);
    },
  );
}
