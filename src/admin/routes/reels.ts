import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { createReel, listReels, MAX_REEL_CLIPS, ReelView, retryReel } from '../../operations/clips.js';
import type { OperationDeps } from '../../operations/deps.js';
import { conflict } from '../../store/conflicts.js';
import { adminResponses, Text, Uuid } from '../schemas.js';
import { requireOfVisibleTest, requireTestAccess } from './access.js';

const TestParams = Type.Object({ testId: Uuid });
const ReelParams = Type.Object({ reelId: Uuid });
const CreateReelBody = Type.Object(
  { name: Text(200), clipIds: Type.Array(Uuid, { minItems: 1, maxItems: MAX_REEL_CLIPS, description: 'Clips of the test\'s sessions, in playing order, each once.' }) },
  { additionalProperties: false },
);
const tags = ['Clips and reels'];

/** A test's highlight reels (`results-api reels`): operators, and account admins within their workspaces. */
export function registerReelRoutes(app: FastifyInstance, deps: OperationDeps): void {
  app.get<{ Params: Static<typeof TestParams> }>(
    '/admin/api/tests/:testId/reels',
    { schema: { tags, summary: "A test's highlight reels, with their status", params: TestParams, response: adminResponses({ 200: Type.Array(ReelView) }, [404]) } },
    async (request) => {
      const { test } = await requireTestAccess(request, deps.store, request.params.testId.toLowerCase());
      return listReels(deps, test.id);
    },
  );

  app.post<{ Params: Static<typeof TestParams>; Body: Static<typeof CreateReelBody> }>(
    '/admin/api/tests/:testId/reels',
    {
      schema: {
        tags,
        summary: "Join clips of the test's sessions into a highlight reel (made by a running server)",
        description: 'Every clip must still be cut from its session\'s video (400 naming the first that cannot, as clipIds[i]).',
        params: TestParams,
        body: CreateReelBody,
        response: adminResponses({ 201: ReelView }, [404, 409]),
      },
    },
    async (request, reply) => {
      const { caller, test } = await requireTestAccess(request, deps.store, request.params.testId.toLowerCase());
      const reel = await createReel(deps, { testId: test.id, name: request.body.name.trim(), clipIds: request.body.clipIds.map((id) => id.toLowerCase()) }, caller);
      return reply.code(201).send(reel);
    },
  );

  app.post<{ Params: Static<typeof ReelParams> }>(
    '/admin/api/reels/:reelId/retry',
    {
      schema: {
        tags,
        summary: 'Make a failed highlight reel again (ERROR, then GENERATING): a new set of attempts, audited',
        description: 'Refused (409) unless the reel is in ERROR, and (400) when one of its clips can no longer be cut from its session\'s video.',
        params: ReelParams,
        response: adminResponses({ 200: ReelView }, [404, 409]),
      },
    },
    async (request) => {
      const reelId = request.params.reelId.toLowerCase();
      const { caller } = await requireOfVisibleTest(request, deps.store, await deps.store.reels.findReel(reelId), () => conflict.noReel(reelId));
      return retryReel(deps, reelId, caller);
    },
  );
}
