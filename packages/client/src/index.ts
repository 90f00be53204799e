/**
 * `@results-api/client`: the SDK for API users. No runtime dependencies and no Node modules; it
 * runs wherever the global `fetch` does (Node 20+, browsers, Deno, Bun).
 *
 * @packageDocumentation
 */
export { ResultsClient, MAX_OFFSET, MAX_PAGE_SIZE } from './results-client.js';
export { ResultsApiError, ResultsNetworkError } from './errors.js';
export type {
  DemographicInfo,
  QxScores,
  SessionDetails,
  SessionsWithDetailsOptions,
  SessionWithDetails,
  TaskAnswer,
  TaskGroupItem,
  TaskItem,
} from './session-details.js';
export type { ProblemDetails, OAuthErrorDetails, LegacyErrorDetails, ResultsApiErrorInit } from './errors.js';
export type {
  AccessTokenInfo,
  ApiForm,
  CallOptions,
  Clip,
  ClipDetails,
  ClipLayout,
  ClipsResponse,
  ClipVideoRegion,
  CompletedSession,
  CompletedSessionAnswer,
  CompletedSessionsPage,
  FetchFunction,
  HighlightReel,
  HighlightReelsResponse,
  NumberedPageQuery,
  OffsetPageQuery,
  PageProgress,
  ReelDetails,
  Pagination,
  ResultsClientOptions,
  SearchHit,
  SearchPage,
  SearchQuery,
  SessionIterationOptions,
  SessionResult,
  SessionResultsPage,
  SessionResultsQuery,
  VideoDownloadLink,
  Workspace,
  WorkspaceStudy,
} from './types.js';
