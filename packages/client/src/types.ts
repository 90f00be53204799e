/**
 * The shapes the SDK speaks: its options and the Results API's JSON bodies.
 * Plain types only, so the SDK stays free of runtime dependencies.
 */

/**
 * Which of the two documented request forms a client uses.
 * - `A` (earlier): the `default` authorization server, scope `public_api.read`, the `token:`
 *   header, `limit`/`offset` paging on `/v2/sessionResults`.
 * - `B` (current): a custom authorization server, scope `studies:read`,
 *   `Authorization: Bearer`, `rowsPerPage`/`pageNumber` paging on `/api/v2/sessionResults`.
 */
export type ApiForm = 'A' | 'B';

/** A `fetch` compatible with the global one (Node 20+, browsers, or a test double). */
export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

/** Options of {@link ResultsClient}. */
export interface ResultsClientOptions {
  /** `{auth_url}`: where `/oauth2/<server>/v1/token` is served, e.g. `https://auth.example.com`. */
  authUrl: string;
  /** `{base_url}`: where `/api/v2/sessionResults` is served, e.g. `https://api.example.com`. */
  baseUrl: string;
  /** The client id issued by support. */
  clientId: string;
  /** The client secret issued with the client id. Keep it out of logs and source control. */
  clientSecret: string;
  /** The custom authorization server's id (form B), e.g. `aus1a2b3c4d5e6f7g8h9`. */
  authorizationServerId?: string;
  /** The request form; defaults to `B` when `authorizationServerId` is given, otherwise `A`. */
  form?: ApiForm;
  /** The `fetch` to use; defaults to the global one. */
  fetch?: FetchFunction;
  /** Default time limit of one call, retries included, in milliseconds (default 30 000). */
  timeoutMs?: number;
  /** How many times a failed request is retried before its error is thrown (default 5). */
  maxRetries?: number;
  /** Current time in epoch milliseconds; for tests that control token expiry. */
  now?: () => number;
  /** Waits before a retry; for tests that must not wait. Must reject when `signal` aborts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** A number in [0, 1) for the retry jitter; for tests that need fixed delays. */
  random?: () => number;
}

/** Per-call options accepted by every method that talks to the service. */
export interface CallOptions {
  /** Aborts the call; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Time limit of this call in milliseconds, retries and waits included; overrides the
   * client's `timeoutMs`. On expiry the call rejects with a `TimeoutError` DOMException.
   */
  timeoutMs?: number;
}

/** One page by `limit`/`offset` (earlier form). */
export interface OffsetPageQuery {
  /** The test whose sessions are listed (UUID). */
  testId: string;
  /** Page size, 1–500 (server default 25). */
  limit?: number;
  /** Sessions to skip, 0–10 000 (default 0). */
  offset?: number;
}

/** One page by `rowsPerPage`/`pageNumber` (current form). */
export interface NumberedPageQuery {
  /** The test whose sessions are listed (UUID). */
  testId: string;
  /** Page size, 1–500 (server default 25). */
  rowsPerPage?: number;
  /** 1-based page index (default 1). */
  pageNumber?: number;
}

/** Which page of session results to fetch: either paging form, not both. */
export type SessionResultsQuery = OffsetPageQuery | NumberedPageQuery;

/** One session of a test, as the Results API returns it. */
export interface SessionResult {
  sessionId: string;
  audienceId: string | null;
  status: string;
  /** UTC, ISO 8601 with milliseconds. */
  startTime: string;
  /** UTC, ISO 8601 with milliseconds; null while unfinished. */
  finishTime: string | null;
}

/** Where a page lies among all sessions of the test. */
export interface Pagination {
  limit: number;
  offset: number;
  /** Sessions of the test across all pages. */
  totalCount: number;
  /** Current form only. */
  rowsPerPage?: number;
  /** Current form only. */
  pageNumber?: number;
  /** Current form only. */
  totalPages?: number;
}

/** One page of `GET /api/v2/sessionResults` (or `/v2/sessionResults`). */
export interface SessionResultsPage {
  testId: string;
  /** Newest first by startTime; ties by sessionId descending. */
  sessions: SessionResult[];
  meta: { pagination: Pagination };
}

/** Reported by {@link ResultsClient.sessionResults} after each page arrives. */
export interface PageProgress {
  /** Sessions of the test: the v2 page's `totalCount`, or the v1 page's `completedSessionCount`. */
  totalCount: number;
  /** Distinct sessions received so far, this page included. */
  received: number;
  /** How the page was read: by offset (v2 listing) or by cursor (v1 completed sessions, for tests beyond the offset bound). */
  via: 'offset' | 'cursor';
  /** The sessions of the page just received. */
  sessions: SessionResult[];
}

/** Options of {@link ResultsClient.sessionResults}. */
export interface SessionIterationOptions {
  /** Sessions per request of the v2 listing, 1–500 (default 500, the most the API allows). */
  pageSize?: number;
  /** Stops the iteration; the pending `next()` rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Time limit of each page request in milliseconds (default: the client's `timeoutMs`). */
  timeoutMs?: number;
  /** Called after each page arrives, before its sessions are yielded (e.g. for a progress bar). */
  onPage?: (progress: PageProgress) => void;
  /**
   * The deepest offset the v2 listing serves (default {@link MAX_OFFSET}, the service's bound).
   * A test with more sessions than it reaches is read through the v1 cursor instead.
   */
  offsetBound?: number;
}

/** A workspace where the caller is a team member (Legacy v1). */
export interface Workspace {
  id: string;
  name: string;
  uuid: string;
}

/** A test ("study") of a workspace (Legacy v1); its `uuid` is the `testId` of the session listing. */
export interface WorkspaceStudy {
  uuid: string;
  title: string;
  /** `STUDYV2` for tests the v2 listing serves. */
  type: string;
  /** SURVEY, LIVE_CONVERSATION, NON_THINK_OUT_LOUD or THINK_OUT_LOUD. */
  productType: string;
  /** UTC, ISO 8601. */
  orderedAt: string;
  orderedBy?: { email: string; name?: string };
  /** Pass as `after` to list the studies that follow. */
  cursor: string;
}

/** One completed session of a page of `GET /usertesting/api/v1/studies/{uuid}/completed-sessions`. */
export interface CompletedSession {
  cursor: string;
  sessionUuid: string;
  /** UTC, ISO 8601 with milliseconds. */
  completedDateTime: string;
  state: string;
  /** Extension: as in the v2 listing. */
  startTime: string;
  /** Extension: as in the v2 listing. */
  audienceId: string | null;
  /** The imported answers, one per task answered or skipped, in plan order; empty without details. */
  answers: CompletedSessionAnswer[];
}

/** One answer of a completed session (Legacy v1). */
export interface CompletedSessionAnswer {
  /** Whole seconds from the session start to the answer's start (rounded down). */
  time: number;
  /** Seconds, rounded to the nearest. */
  duration: number;
  /** The task's `taskType`, e.g. `multiple_choice`. */
  type: string;
  /** The answer as text; empty for blank, image and skipped tasks. */
  responses: string[];
  /** Extension: the task's position in the plan, from 1. */
  position: number;
  /** Extension: whether the participant skipped the task. */
  skipped: boolean;
}

/** One page of completed sessions: empty when the listing is done. */
export interface CompletedSessionsPage {
  completedSessionCount: number;
  sessions: CompletedSession[];
}

/** A link to download a session's video (the real VideoDownloadResponseDto). */
export interface VideoDownloadLink {
  /** GET it without a token until `expiresAt`; Range requests work (resume, seek). */
  videoUrl: string;
  sessionId: string;
  /** ISO 8601 UTC; one hour after it was issued. Ask again for a new link. */
  expiresAt: string;
}

/** What {@link ResultsClient.search} looks for (GET /api/v2/search, an extension of this service). */
export interface SearchQuery {
  /** The words to find (every one must occur; stemmed). At most 200 characters and 12 words. */
  q: string;
  /** Only this test; otherwise every test the caller may see. */
  testId?: string;
  /** Hits per page, 1 to 100 (the server's default: 20). */
  limit?: number;
  /** Hits to skip, up to 10 000 (default 0). */
  offset?: number;
}

/** Something said in a session video, or an answer to a task, that matched a search. */
export interface SearchHit {
  sessionId: string;
  testId: string;
  /** transcript: a cue of the session's transcript; answer: a written or verbal task response. */
  kind: 'transcript' | 'answer';
  /** The task answered, or the one the participant was on at that moment; null when unknown. */
  taskId: string | null;
  /** Where it starts and ends in the session video (ms); null for written answers. */
  startMs: number | null;
  endMs: number | null;
  /** Who speaks (a transcript's voice tag); null for answers and unnamed voices. */
  speaker: string | null;
  /** The matching text around the words found, each found word between `**`. */
  snippet: string;
}

/** One page of search hits, best first. */
export interface SearchPage {
  /** The words searched for, as the index sees them: English stop words left out (empty when only those were asked: no hits). */
  query: string;
  hits: SearchHit[];
  meta: { limit: number; offset: number; hasMore: boolean };
}

/** An access token and what the authorization server said about it. */
export interface AccessTokenInfo {
  /** The token itself (a JWT). Never log it. */
  accessToken: string;
  /** Always `Bearer`. */
  tokenType: string;
  /** The scope granted. */
  scope: string;
  /** When the token expires, in epoch milliseconds (by the client's clock). */
  expiresAt: number;
}

/** How a player lays out a clip (the real ClipLayoutDto). */
export interface ClipLayout {
  mainStream: 'SCREEN' | 'CAMERA';
  pipPosition: 'TOP_LEFT' | 'TOP_RIGHT' | 'BOTTOM_LEFT' | 'BOTTOM_RIGHT';
  pipState: 'OPENED' | 'CLOSED';
}

/** A rectangle of the video frame, in pixels (the real ClipVideoRegionDto). */
export interface ClipVideoRegion {
  topLeftPoint?: { x: number; y: number };
  widthPx: number;
  heightPx: number;
}

/** One clip of a session video (the real ClipDto). */
export interface Clip {
  uuid: string;
  name: string;
  description?: string;
  timeStartMs: number;
  timeEndMs: number;
  videoUuid: string;
  hasAudio: boolean;
  hasCamera: boolean;
  layout?: ClipLayout;
}

/** The clips of a session video (the real ClipsResponseDto). */
export interface ClipsResponse {
  /** The test the session belongs to. */
  studyUuid: string;
  clips: Clip[];
  videoRegions?: { screen?: ClipVideoRegion; camera?: ClipVideoRegion };
}

/** A clip's state and, once GENERATED, its 15-minute download link (the real ClipDetailsResponseDto). */
export interface ClipDetails {
  clipUuid: string;
  status: 'GENERATING' | 'GENERATED' | 'ERROR';
  clipUrl?: string | null;
}

/** One highlight reel of a test (the real HighlightReelDto). */
export interface HighlightReel {
  uuid: string;
  name: string;
  durationMs: number;
  lastUpdatedAtMs: number;
  numClips: number;
  areAllClipsInReel: boolean;
}

/** The highlight reels of a test (the real HighlightReelsResponseDto). */
export interface HighlightReelsResponse {
  reels: HighlightReel[];
  studyWithClips: boolean;
}

/** A reel's state and, once GENERATED, its 15-minute download link (the real ReelDetailsResponseDto). */
export interface ReelDetails {
  reelId: string;
  status: 'GENERATING' | 'GENERATED' | 'ERROR';
  reelUrl?: string | null;
}
