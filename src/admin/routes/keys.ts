import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { OperationDeps } from '../../operations/deps.js';
import { listKeys, rotateKey } from '../../operations/keys.js';
import { KeyView, RotatedKey } from '../../operations/views.js';
import { requireRole } from '../caller.js';
import { adminResponses } from '../schemas.js';

/** The signing keys of access tokens (`results-api keys`): operators only. */
export function registerKeyRoutes(app: FastifyInstance, deps: OperationDeps): void {
  app.get('/admin/api/keys', { schema: { tags: ['Keys'], summary: 'List signing keys with their state', response: adminResponses({ 200: Type.Array(KeyView) }) } }, async (request) => {
    requireRole(request, 'operator');
    return listKeys(deps);
  });

  app.post(
    '/admin/api/keys/rotate',
    {
      schema: {
        tags: ['Keys'],
        summary: 'Add a new signing key and sign with it',
        description: 'The previous key stays published until every token it signed has expired.',
        response: adminResponses({ 200: RotatedKey }),
      },
    },
    async (request) => rotateKey(deps, requireRole(request, 'operator')),
  );
}
