import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { EXTENSION } from '../docs/extension.js';
import { API_SECURITY } from '../docs/security-schemes.js';
import { TAG } from '../docs/tags.js';
import { strictQuery } from '../http/strict-query.js';
import { apiResponses, NOT_FOUND } from '../results/responses.js';
import { Uuid } from '../results/schemas.js';
import { MAX_QUERY_LENGTH, MAX_QUERY_WORDS } from './search-query.js';
import { search, SearchResponse, type SearchDeps } from './search.js';

const SearchQuery = Type.Object(
  {
    q: Type.String({
      maxLength: MAX_QUERY_LENGTH,
      description: `The words to find (at most ${MAX_QUERY_WORDS}, every one must occur; stemmed, so "click" finds "clicked"). Punctuation and operators are ignored.`,
      examples: ['checkout button'],
    }),
    testId: Type.Optional(Uuid('Only this test (otherwise every test the caller may see).')),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Hits per page (default 20).' })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000, description: 'Hits to skip (default 0).' })),
  },
  { additionalProperties: false },
);
type SearchQuery = Static<typeof SearchQuery>;

/** GET /api/v2/search (extension): full-text search over the transcripts and answers the caller may see. */
export function registerSearchRoute(scope: FastifyInstance, deps: SearchDeps): void {
  scope.get<{ Querystring: SearchQuery }>(
    '/api/v2/search',
    {
      preValidation: strictQuery(SearchQuery),
      schema: {
        summary: 'Search transcripts and answers',
        description:
          'Extension. Full-text search over what participants said (transcript cues) and wrote or said in answers (written and ' +
          'verbal responses), in every test of the workspaces where the caller is a member, or in one test: hits ranked best ' +
          'first, each with its session, task, time in the video, speaker and a snippet with the words found between `**`.',
        tags: [TAG.results],
        operationId: 'searchResults',
        security: API_SECURITY,
        querystring: SearchQuery,
        response: apiResponses({ description: 'One page of hits, best first.', schema: SearchResponse }, { notFound: NOT_FOUND.test }),
        ...EXTENSION,
      },
    },
    async (request) => search(deps, request.caller, { q: request.query.q, testId: request.query.testId, offset: request.query.offset ?? 0, limit: request.query.limit ?? 20 }),
  );
}
