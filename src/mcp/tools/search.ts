import { Type } from '@sinclair/typebox';
import { MAX_QUERY_LENGTH } from '../../search/search-query.js';
import { search, SearchHit } from '../../search/search.js';
import { clockTime } from './clock-time.js';
import { defineTool, Id, pageWindow, encodeCursor } from '../tool.js';

/** Full-text search: GET /api/v2/search. */
export const searchTool = defineTool({
  name: 'search',
  title: 'Search transcripts and answers',
  description:
    'Full-text search over what participants said (transcripts) and wrote or said in answers, in every test you may see or in one: ' +
    'hits ranked best first, with session, task, time in the video, speaker and a snippet (words found between **). Every word must occur; ' +
    'words are stemmed ("click" finds "clicked"); English stop words ("the", "i", "not") and punctuation and operators are ignored.',
  input: Type.Object({
    query: Type.String({ minLength: 1, maxLength: MAX_QUERY_LENGTH, description: 'The words to find.' }),
    testId: Type.Optional(Id('Only this test (from list_tests).')),
    cursor: Type.Optional(Type.String({ maxLength: 200, description: 'The `nextCursor` of the previous page.' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: 'At most this many hits (default 20).' })),
  }),
  output: Type.Object({ query: Type.String(), hits: Type.Array(SearchHit), nextCursor: Type.Optional(Type.String()) }),
  async run(caller, input, deps) {
    const listing = `${input.testId ?? ''} ${input.query}`;
    const window = pageWindow('search', listing, { ...input, limit: input.limit ?? 20 });
    const found = await search(deps, caller, { q: input.query, testId: input.testId, ...window }, 'query');
    return {
      query: found.query,
      hits: found.hits,
      ...(found.meta.hasMore ? { nextCursor: encodeCursor('search', listing, window.offset + window.limit) } : {}),
    };
  },
  render: (out) =>
    out.hits.length === 0
      ? `No hits for "${out.query}".`
      : out.hits
          .map((h) => `- session ${h.sessionId}${h.startMs === null ? '' : ` at ${clockTime(h.startMs)}`}${h.speaker ? ` (${h.speaker})` : ''}: ${h.snippet}`)
          .join('\n'),
});
