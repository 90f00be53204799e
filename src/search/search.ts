import { Type, type Static } from '@sinclair/typebox';
import type { Caller } from '../access/caller.js';
import type { ResourceAccess } from '../access/resource-access.js';
import type { SearchRepository } from '../store/search.js';
import type { SessionDetailsRepository } from '../store/session-details.js';
import { searchWords } from './search-query.js';
import { searchedWords } from './stop-words.js';

export const SearchHit = Type.Object(
  {
    sessionId: Type.String({ format: 'uuid', description: 'The session the text belongs to.' }),
    testId: Type.String({ format: 'uuid', description: 'Its test.' }),
    kind: Type.Union([Type.Literal('transcript'), Type.Literal('answer')], {
      description: 'transcript: something said (a cue of the transcript); answer: a written or verbal response to a task.',
    }),
    taskId: Type.Union([Type.String(), Type.Null()], {
      description: "The plan task: the one answered, or the one the participant was on at that moment of the video; null when the session's details do not say.",
    }),
    startMs: Type.Union([Type.Integer(), Type.Null()], { description: 'Where it starts in the session video (ms).' }),
    endMs: Type.Union([Type.Integer(), Type.Null()], { description: 'Where it ends (ms).' }),
    speaker: Type.Union([Type.String(), Type.Null()], { description: "Who speaks (a transcript's voice tag); null for answers and unnamed voices." }),
    snippet: Type.String({ description: 'The matching text around the words found, each found word between `**`.' }),
  },
  { title: 'SearchHit' },
);

export const SearchResponse = Type.Object(
  {
    query: Type.String({
      description: 'The words searched for, as the index sees them: English stop words (`the`, `i`, `not`, ...) left out; empty when the query had no other words, which finds nothing.',
    }),
    hits: Type.Array(SearchHit, { description: 'Best first.' }),
    meta: Type.Object(
      {
        limit: Type.Integer(),
        offset: Type.Integer(),
        hasMore: Type.Boolean({ description: 'Whether another page follows (ask with offset + limit).' }),
      },
      { title: 'SearchMeta' },
    ),
  },
  { title: 'SearchResponse' },
);
export type SearchResponse = Static<typeof SearchResponse>;

export interface SearchDeps {
  access: ResourceAccess;
  search: Pick<SearchRepository, 'search'>;
  sessionDetails: Pick<SessionDetailsRepository, 'listDetails'>;
}

interface TaskTimes {
  tasks?: { taskId: string; startTimeMs: number; endTimeMs: number }[];
}

/**
 * Full-text search over the transcripts and answers of every test the caller may see, or of
 * one (ResourceAccess decides which tests and which kinds of text, on every request; the query
 * applies them). A transcript hit is given the task its session was on at that moment, from
 * the session's details.
 */
export async function search(
  deps: SearchDeps,
  caller: Caller,
  request: { q: string; testId?: string | undefined; offset: number; limit: number },
  /** What the query parameter is called where it came from, for the refusal's wording. */
  queryName = 'q',
): Promise<SearchResponse> {
  const words = searchedWords(searchWords(request.q, queryName));
  const scope = await deps.access.searchScope(caller, request.testId);
  const found = await deps.search.search(words, scope, request.offset, request.limit + 1);
  const hits = found.slice(0, request.limit);
  const untasked = [...new Set(hits.filter((h) => h.taskId === null && h.startMs !== null).map((h) => h.sessionId))];
  const details = await deps.sessionDetails.listDetails(untasked);
  return {
    query: words.join(' '),
    hits: hits.map((h) => {
      const at = h.startMs;
      const task = h.taskId === null && at !== null ? (details.get(h.sessionId) as TaskTimes | undefined)?.tasks?.find((t) => t.startTimeMs <= at && at < t.endTimeMs) : undefined;
      return { ...h, taskId: h.taskId ?? task?.taskId ?? null };
    }),
    meta: { limit: request.limit, offset: request.offset, hasMore: found.length > request.limit },
  };
}
