import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { JobView, listJobs } from '../../operations/clips.js';
import type { OperationDeps } from '../../operations/deps.js';
import { JOB_STATES } from '../../store/jobs.js';
import { requireRole } from '../caller.js';
import { adminResponses } from '../schemas.js';

const JobsQuery = Type.Object(
  {
    state: Type.Optional(Type.Union(JOB_STATES.map((s) => Type.Literal(s)))),
    kind: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'e.g. clip.generate' })),
    limit: Type.Integer({ minimum: 1, maximum: 10_000, default: 50 }),
  },
  { additionalProperties: false },
);

/** The background jobs that cut clips and make reels (`results-api jobs`): they span every workspace, so operators only. */
export function registerJobRoutes(app: FastifyInstance, deps: OperationDeps): void {
  app.get<{ Querystring: Static<typeof JobsQuery> }>(
    '/admin/api/jobs',
    {
      schema: {
        tags: ['Jobs'],
        summary: 'Background jobs (clips, reels), newest first, with their state and last error (operators)',
        querystring: JobsQuery,
        response: adminResponses({ 200: Type.Array(JobView) }),
      },
    },
    async (request) => {
      requireRole(request, 'operator');
      const { state, kind, limit } = request.query;
      return listJobs(deps, { limit, ...(state === undefined ? {} : { state }), ...(kind === undefined ? {} : { kind: kind.trim() }) });
    },
  );
}
