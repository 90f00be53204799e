import { Type, type Static } from '@sinclair/typebox';
import { EXTENSION } from '../docs/extension.js';

/** Plain UUID text (ajv's `uuid` format alone would also take a `urn:uuid:` prefix). */
export const Uuid = (description: string) =>
  Type.String({
    format: 'uuid',
    pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
    description,
  });

export const PAGE_SIZE_MAX = 500;
export const PAGE_SIZE_DEFAULT = 25;
export const OFFSET_MAX = 10_000;

/**
 * A parameter the real document types as `number` that only a whole value makes sense for:
 * `2.0` is taken as 2 (a client generated from the real document may send it), `2.5` is refused.
 */
const WholeNumber = (options: { minimum: number; maximum: number; description: string }) => Type.Number({ ...options, multipleOf: 1 });

/**
 * Defaults are stated in the descriptions, not as JSON Schema `default`: the two paging forms
 * exclude each other, and Swagger UI (like some generated clients) sends every parameter that
 * has a default, which would mix the forms (400). resolvePaging applies them.
 */
export const SessionResultsQuery = Type.Object({
  testId: Uuid('The test whose session results are listed.'),
  limit: Type.Optional(
    WholeNumber({ minimum: 1, maximum: PAGE_SIZE_MAX, description: `Earlier form: page size (default ${PAGE_SIZE_DEFAULT}). Not with rowsPerPage/pageNumber.` }),
  ),
  offset: Type.Optional(
    WholeNumber({ minimum: 0, maximum: OFFSET_MAX, description: 'Earlier form: sessions to skip (default 0). Not with rowsPerPage/pageNumber.' }),
  ),
  rowsPerPage: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: PAGE_SIZE_MAX,
      description: `Extension (current form): page size (default ${PAGE_SIZE_DEFAULT}). Not with limit/offset.`,
      ...EXTENSION,
    }),
  ),
  pageNumber: Type.Optional(
    Type.Integer({
      minimum: 1,
      description: `Extension (current form): 1-based page index (default 1); (pageNumber − 1) × rowsPerPage must be at most ${OFFSET_MAX}. Not with limit/offset.`,
      ...EXTENSION,
    }),
  ),
});
export type SessionResultsQuery = Static<typeof SessionResultsQuery>;

/** A point in time as ISO 8601 text in UTC, as the real documents write one. */
export const Timestamp = (description: string) => Type.String({ format: 'date-time', description, examples: ['2024-11-21T12:23:52.614Z'] });

/**
 * A value that may be null, as one JSON Schema type list (OpenAPI 3.1), not an anyOf: the
 * serializer then checks for null instead of validating each value against every branch.
 */
export const Nullable = <T>(type: string, options: Record<string, unknown> = {}) => Type.Unsafe<T | null>({ type: [type, 'null'], ...options });

// Component names are the real document's, so a client generated from either gets the same types.

export const SessionSummaryResultItem = Type.Object(
  {
    sessionId: Type.String({ format: 'uuid' }),
    audienceId: Nullable<string>('string', { format: 'uuid', description: 'null when the session has no audience.' }),
    status: Type.String({ examples: ['COMPLETE'] }),
    startTime: Timestamp('UTC, ISO 8601 with milliseconds.'),
    finishTime: Nullable<string>('string', {
      format: 'date-time',
      description: 'UTC, ISO 8601 with milliseconds; null while unfinished.',
      examples: ['2024-11-21T12:31:02.000Z'],
    }),
  },
  { title: 'SessionSummaryResultItemDto', description: 'One completed session of the test.' },
);
export type SessionSummaryResultItem = Static<typeof SessionSummaryResultItem>;

export const SessionSummaryPagination = Type.Object(
  {
    limit: Type.Integer({ description: 'The page size asked for (or its default).' }),
    offset: Type.Integer({ description: 'Completed sessions before this page.' }),
    totalCount: Type.Integer({ description: 'Completed sessions of the test across all pages.' }),
    rowsPerPage: Type.Optional(Type.Integer({ description: 'Extension, current form only: the page size.', ...EXTENSION })),
    pageNumber: Type.Optional(Type.Integer({ description: 'Extension, current form only: this page, from 1.', ...EXTENSION })),
    totalPages: Type.Optional(Type.Integer({ description: 'Extension, current form only: ceil(totalCount / rowsPerPage).', ...EXTENSION })),
  },
  { title: 'SessionSummaryPaginationDto' },
);

export const SessionSummaryResultsResponse = Type.Object(
  {
    testId: Type.String({ format: 'uuid' }),
    sessions: Type.Array(SessionSummaryResultItem, {
      description: 'The completed sessions of this page: newest first by startTime, ties by sessionId descending.',
    }),
    meta: Type.Object({ pagination: SessionSummaryPagination }, { title: 'SessionSummaryResultsMetaDto' }),
  },
  { title: 'SessionSummaryResultsResponseDto' },
);
export type SessionSummaryResultsResponse = Static<typeof SessionSummaryResultsResponse>;

export const Problem = Type.Object(
  {
    type: Type.String({ examples: ['urn:results-api:problem:not-found'] }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
  },
  { description: 'RFC 9457 problem details (application/problem+json).' },
);
