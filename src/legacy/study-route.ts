import type { FastifyInstance } from 'fastify';
import { NOT_FOUND } from '../results/responses.js';
import { legacyOperation, type LegacyDeps, type LegacyPrefix } from './legacy-operation.js';
import { legacyResponses } from './responses.js';
import { Study, StudyParams } from './schemas.js';
import { studyView } from './views.js';

/** GET /usertesting/api/v1/studies/{studyUuid}: a test with its plan, tasks, session count and NPS. */
export function registerStudyRoute(scope: FastifyInstance, prefix: LegacyPrefix, deps: LegacyDeps): void {
  scope.get<{ Params: StudyParams }>(
    `${prefix}/studies/:studyUuid`,
    {
      schema: {
        ...legacyOperation(prefix, { summary: 'A test with its plan, tasks and session count', operationId: 'getStudy' }),
        params: StudyParams,
        response: legacyResponses({ description: 'The test.', schema: Study }, { notFound: NOT_FOUND.study }),
      },
    },
    async (request) => {
      const test = await deps.access.study(request.caller, request.params.studyUuid, 'studies');
      return studyView(test, await deps.netPromoterScores.of(test));
    },
  );
}
