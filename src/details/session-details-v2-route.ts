import type { FastifyInstance } from 'fastify';
import type { ResourceAccess } from '../access/resource-access.js';
import { EXTENSION } from '../docs/extension.js';
import { API_SECURITY } from '../docs/security-schemes.js';
import { TAG } from '../docs/tags.js';
import { V2_PREFIXES } from '../results/earlier-path.js';
import { apiResponses, NOT_FOUND } from '../results/responses.js';
import type { SessionDetailsReader } from './details-reader.js';
import { SessionIdParams, SessionResultsV2Response } from './schemas.js';

/**
 * GET /api/v2/sessionResults/{sessionId} (and /v2/...): the session details as the help centre's
 * "Accessing Detailed Session Responses" describes them, a path the real OpenAPI documents do not
 * list (an extension here): the v3 body, with the article's task types VERBAL and SKIPPED.
 */
export function registerSessionDetailsV2Route(scope: FastifyInstance, deps: { access: ResourceAccess; details: SessionDetailsReader }): void {
  for (const prefix of V2_PREFIXES) {
    scope.get<{ Params: SessionIdParams }>(
      `${prefix}/sessionResults/:sessionId`,
      {
        schema: {
          summary: prefix === '/api/v2' ? 'Retrieve session details (v2, as the help centre documents it)' : 'Retrieve session details (v2, earlier path)',
          description:
            'The same session details as GET /api/v3/sessionResults/{sessionId}, at the path the help centre documents ' +
            '(an extension: the real OpenAPI documents do not list it). Task types follow the help centre: a verbal ' +
            "response is VERBAL (its answer under `verbal`), and a task this participant skipped is SKIPPED whatever its type." +
            (prefix === '/v2' ? ' Served without the /api prefix too.' : ''),
          tags: [TAG.results],
          operationId: prefix === '/api/v2' ? 'getSessionResultsV2' : 'getSessionResultsV2EarlierPath',
          ...EXTENSION,
          security: API_SECURITY,
          params: SessionIdParams,
          response: apiResponses({ description: 'The session with its details.', schema: SessionResultsV2Response }, { notFound: NOT_FOUND.session }),
        },
      },
      async (request, reply) => {
        const visible = await deps.access.session(request.caller, request.params.sessionId);
        // As the v3 route: the view builds exactly the schema's fields; JSON.stringify is the fast path.
        return reply.type('application/json; charset=utf-8').send(await deps.details.sessionResults(visible, 'v2', JSON.stringify));
      },
    );
  }
}
