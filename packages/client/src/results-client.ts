import { ResultsApiError } from './errors.js';
import { pairWithDetails, type QxScores, type SessionDetails, type SessionsWithDetailsOptions, type SessionWithDetails } from './session-details.js';
import { DEFAULT_RETRY_POLICY, sleep as defaultSleep } from './retry.js';
import { TokenCache } from './token-cache.js';
import { Transport, type CallScope } from './transport.js';
import type {
  AccessTokenInfo,
  ApiForm,
  CallOptions,
  ClipDetails,
  ClipsResponse,
  HighlightReelsResponse,
  ReelDetails,
  ResultsClientOptions,
  SearchPage,
  SearchQuery,
  SessionIterationOptions,
  SessionResult,
  SessionResultsPage,
  SessionResultsQuery,
  CompletedSession,
  CompletedSessionsPage,
  VideoDownloadLink,
  Workspace,
  WorkspaceStudy,
} from './types.js';

/** The largest page the Results API serves. */
export const MAX_PAGE_SIZE = 500;

/** The deepest offset the Results API serves: a listing reaches the newest 10 000 + page size sessions. */
export const MAX_OFFSET = 10_000;

const DEFAULT_TIMEOUT_MS = 30_000;

/** Where the Legacy (v1) family lives. */
const LEGACY_BASE = '/usertesting/api/v1';

/** A v1 completed session in the v2 listing's shape (the same fields, the same time format). */
const asSessionResult = (s: CompletedSession): SessionResult => ({
  sessionId: s.sessionUuid,
  audienceId: s.audienceId,
  status: 'COMPLETE',
  startTime: s.startTime,
  finishTime: s.completedDateTime,
});

/** What each form means on the wire. */
const FORMS = {
  A: { scope: 'public_api.read', sessionsPath: '/v2/sessionResults' },
  B: { scope: 'studies:read', sessionsPath: '/api/v2/sessionResults' },
} as const;

/**
 * A client of the Results API for one set of client credentials.
 *
 * It mints access tokens with the client-credentials grant and keeps one cached, renewing it
 * a minute before expiry; concurrent calls share one token request. A token the API refuses
 * (401) is dropped and re-minted once. Rate-limited requests (429) are retried after the time
 * the server asks; lost responses and 5xx answers of reads are retried with backoff. Every
 * method takes an `AbortSignal` and a time limit.
 *
 * @example
 * ```ts
 * const client = new ResultsClient({ authUrl, baseUrl, clientId, clientSecret, authorizationServerId });
 * for await (const session of client.sessionResults(testId)) console.log(session.sessionId);
 * ```
 */
export class ResultsClient {
  /** The request form in use. */
  readonly form: ApiForm;
  private readonly authUrl: string;
  private readonly baseUrl: string;
  private readonly tokenUrl: string;
  private readonly transport: Transport;
  private readonly tokens: TokenCache;

  /** Checks the options; throws a `TypeError` naming the first one that is wrong. Sends nothing. */
  constructor(private readonly options: ResultsClientOptions) {
    this.authUrl = httpBase(options.authUrl, 'authUrl');
    this.baseUrl = httpBase(options.baseUrl, 'baseUrl');
    if (!options.clientId) throw new TypeError('ResultsClient: clientId is required');
    if (!options.clientSecret) throw new TypeError('ResultsClient: clientSecret is required');
    if (options.form !== undefined && options.form !== 'A' && options.form !== 'B') {
      throw new TypeError(`ResultsClient: form must be "A" or "B" (got ${JSON.stringify(options.form)})`);
    }
    this.form = options.form ?? (options.authorizationServerId ? 'B' : 'A');
    if (this.form === 'B' && !options.authorizationServerId) {
      throw new TypeError('ResultsClient: form B needs authorizationServerId (the custom authorization server id)');
    }
    const serverId = this.form === 'A' ? 'default' : options.authorizationServerId!;
    this.tokenUrl = `${this.authUrl}/oauth2/${encodeURIComponent(serverId)}/v1/token`;

    const maxRetries = options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries;
    if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new TypeError('ResultsClient: maxRetries must be an integer ≥ 0');
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!(timeoutMs >= 0)) throw new TypeError('ResultsClient: timeoutMs must be ≥ 0 (0 or Infinity: no limit)');
    this.transport = new Transport({
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      policy: { ...DEFAULT_RETRY_POLICY, maxRetries, random: options.random ?? Math.random },
      sleep: options.sleep ?? defaultSleep,
      timeoutMs,
    });
    const now = options.now ?? (() => Date.now());
    this.tokens = new TokenCache(() => this.mintToken(now), now);
  }

  /** An access token for this client: the cached one while fresh, else a newly minted one. */
  async getAccessToken(options?: CallOptions): Promise<string> {
    return (await this.getAccessTokenInfo(options)).accessToken;
  }

  /** Like {@link ResultsClient.getAccessToken}, with the token's scope and expiry. */
  getAccessTokenInfo(options?: CallOptions): Promise<AccessTokenInfo> {
    return this.tokens.get(this.transport.scope(options).signal);
  }

  /**
   * One page of the sessions of a test, newest first. Page with `limit`/`offset` or with
   * `rowsPerPage`/`pageNumber` (either works in both forms; not both at once).
   */
  async listSessionResults(query: SessionResultsQuery, options?: CallOptions): Promise<SessionResultsPage> {
    const params = new URLSearchParams({ testId: query.testId });
    for (const key of ['limit', 'offset', 'rowsPerPage', 'pageNumber'] as const) {
      const value = (query as Partial<Record<typeof key, number>>)[key];
      if (value !== undefined) params.set(key, String(value));
    }
    const url = `${this.baseUrl}${FORMS[this.form].sessionsPath}?${params}`;
    const body = await this.get(url, this.transport.scope(options));
    if (!isSessionResultsPage(body)) throw unexpectedBody(url, 'not a page of session results');
    return body;
  }

  /**
   * Every session of a test, newest first, fetched page by page as the loop consumes them.
   * Reads the v2 listing by offset; a test with more sessions than that listing reaches (see
   * {@link MAX_OFFSET}) is read through the v1 completed-sessions cursor instead, which has no
   * depth limit and does not shift when sessions arrive. By offset, a session seen on an
   * earlier page (pages shift when sessions arrive during the export) is not yielded twice.
   *
   * @example
   * ```ts
   * for await (const s of client.sessionResults(testId, { signal })) rows.push(s);
   * ```
   */
  async *sessionResults(testId: string, options: SessionIterationOptions = {}): AsyncGenerator<SessionResult, void, undefined> {
    const pageSize = options.pageSize ?? MAX_PAGE_SIZE;
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
      throw new RangeError(`sessionResults: pageSize must be an integer from 1 to ${MAX_PAGE_SIZE} (got ${pageSize})`);
    }
    const offsetBound = options.offsetBound ?? MAX_OFFSET;
    if (!Number.isInteger(offsetBound) || offsetBound < 0 || offsetBound > MAX_OFFSET) {
      throw new RangeError(`sessionResults: offsetBound must be an integer from 0 to ${MAX_OFFSET} (got ${offsetBound})`);
    }
    const call: CallOptions = {
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    };
    // Bounded by what the offset listing reaches (offsetBound + pageSize ids).
    const seen = new Set<string>();
    for (let pageIndex = 0; ; pageIndex++) {
      const offset = pageIndex * pageSize;
      if (offset > offsetBound) {
        // The test grew past the bound while we paged: the cursor reads the rest.
        yield* this.completedSessionsOf(testId, call, options, seen);
        return;
      }
      const query: SessionResultsQuery =
        this.form === 'A' ? { testId, limit: pageSize, offset } : { testId, rowsPerPage: pageSize, pageNumber: pageIndex + 1 };
      const page = await this.listSessionResults(query, call);
      const totalCount = page.meta.pagination.totalCount;
      if (pageIndex === 0 && totalCount > offsetBound + pageSize) {
        // Beyond what offsets reach: read it all by cursor, from the start, in the same order.
        yield* this.completedSessionsOf(testId, call, options, seen);
        return;
      }
      const fresh = page.sessions.filter((s) => !seen.has(s.sessionId));
      for (const s of fresh) seen.add(s.sessionId);
      options.onPage?.({ totalCount, received: seen.size, via: 'offset', sessions: page.sessions });
      yield* fresh;
      if (page.sessions.length < pageSize || offset + pageSize >= totalCount) return;
    }
  }

  /** The rest of a test by the v1 cursor; sessions in `skip` were yielded already. */
  private async *completedSessionsOf(
    testId: string,
    call: CallOptions,
    options: SessionIterationOptions,
    skip: ReadonlySet<string>,
  ): AsyncGenerator<SessionResult, void, undefined> {
    let received = skip.size;
    let after: string | undefined;
    for (;;) {
      const page = await this.completedSessions(testId, after === undefined ? {} : { after }, call);
      if (page.sessions.length === 0) return;
      const sessions = page.sessions.map(asSessionResult);
      const fresh = sessions.filter((s) => !skip.has(s.sessionId));
      received += fresh.length;
      options.onPage?.({ totalCount: page.completedSessionCount, received, via: 'cursor', sessions });
      yield* fresh;
      after = page.sessions.at(-1)!.cursor;
    }
  }

  /**
   * One page of the completed sessions of a test (Legacy v1), newest first: from the start, or
   * after (or before) the session whose `cursor` is given. An empty page means done.
   */
  async completedSessions(testId: string, page: { after?: string; before?: string } = {}, options?: CallOptions): Promise<CompletedSessionsPage> {
    const params = new URLSearchParams();
    if (page.after !== undefined) params.set('after', page.after);
    if (page.before !== undefined) params.set('before', page.before);
    const query = params.size > 0 ? `?${params}` : '';
    const url = `${this.baseUrl}${LEGACY_BASE}/studies/${encodeURIComponent(testId)}/completed-sessions${query}`;
    const body = (await this.get(url, this.transport.scope(options))) as CompletedSessionsPage | null;
    if (typeof body?.completedSessionCount !== 'number' || !Array.isArray(body.sessions)) {
      throw unexpectedBody(url, 'not a page of completed sessions');
    }
    return body;
  }

  /**
   * A link to download the session's video, valid for one hour (no token needed to use it).
   * A session without a video, or outside the caller's workspaces, is a 404 ResultsApiError.
   */
  async videoDownloadUrl(sessionId: string, options?: CallOptions): Promise<VideoDownloadLink> {
    const url = `${this.baseUrl}/api/v2/sessionResults/${encodeURIComponent(sessionId)}/videoDownloadUrl`;
    const body = (await this.get(url, this.transport.scope(options))) as Partial<VideoDownloadLink> | null;
    if (typeof body?.videoUrl !== 'string' || typeof body.expiresAt !== 'string') throw unexpectedBody(url, 'not a video download link');
    return body as VideoDownloadLink;
  }

  /**
   * Full-text search over the transcripts and answers of every test the caller may see, or of
   * `testId`'s (an extension of this service: GET /api/v2/search). One page, best first; ask
   * for the next with `offset` + `limit` while `meta.hasMore`.
   *
   * @example
   * ```ts
   * const { hits } = await client.search({ q: 'checkout button', testId });
   * ```
   */
  async search(query: SearchQuery, options?: CallOptions): Promise<SearchPage> {
    const params = new URLSearchParams({ q: query.q });
    if (query.testId !== undefined) params.set('testId', query.testId);
    if (query.limit !== undefined) params.set('limit', String(query.limit));
    if (query.offset !== undefined) params.set('offset', String(query.offset));
    const url = `${this.baseUrl}/api/v2/search?${params}`;
    const body = (await this.get(url, this.transport.scope(options))) as SearchPage | null;
    if (!Array.isArray(body?.hits) || typeof body.meta?.hasMore !== 'boolean') throw unexpectedBody(url, 'not search hits');
    return body;
  }

  /** The workspaces where the caller's email is a team member (Legacy v1). */
  async workspaces(options?: CallOptions): Promise<Workspace[]> {
    const url = `${this.baseUrl}${LEGACY_BASE}/workspaces`;
    const body = await this.get(url, this.transport.scope(options));
    if (!Array.isArray(body)) throw unexpectedBody(url, 'not a list of workspaces');
    return body as Workspace[];
  }

  /**
   * Every test ("study") of a workspace where the caller is a team member (Legacy v1), all
   * pages. Keep those whose `type` is `STUDYV2`: their `uuid` is a test id of the session listing.
   */
  async studies(workspaceUuid: string, options?: CallOptions): Promise<WorkspaceStudy[]> {
    const studies: WorkspaceStudy[] = [];
    for (;;) {
      const after = studies.at(-1)?.cursor;
      const url = `${this.baseUrl}${LEGACY_BASE}/workspaces/${encodeURIComponent(workspaceUuid)}${after ? `?after=${encodeURIComponent(after)}` : ''}`;
      const body = await this.get(url, this.transport.scope(options));
      if (!Array.isArray(body)) throw unexpectedBody(url, 'not a list of studies');
      if (body.length === 0) return studies;
      studies.push(...(body as WorkspaceStudy[]));
    }
  }

  /** What one session contains (v3): its participant, task groups and tasks with their responses. */
  async sessionDetails(sessionId: string, options?: CallOptions): Promise<SessionDetails> {
    const url = `${this.baseUrl}/api/v3/sessionResults/${encodeURIComponent(sessionId)}`;
    const body = (await this.get(url, this.transport.scope(options))) as SessionDetails | null;
    if (!Array.isArray(body?.tasks) || !Array.isArray(body.taskGroups)) throw unexpectedBody(url, 'not session details');
    return body;
  }

  /** The QXscores of a test, computed by the service from its completed sessions' answers. */
  async qxScores(testId: string, options?: CallOptions): Promise<QxScores> {
    const url = `${this.baseUrl}/api/v2/testResults/${encodeURIComponent(testId)}/qxScores`;
    const body = (await this.get(url, this.transport.scope(options))) as QxScores | null;
    if (!Array.isArray(body?.qxScores) || typeof body.meta?.completes !== 'number') throw unexpectedBody(url, 'not QXscores');
    return body;
  }

  /** The clips of a session's video, in the order they start, with the video's regions. */
  async clips(sessionId: string, options?: CallOptions): Promise<ClipsResponse> {
    const url = `${this.baseUrl}/api/v2/sessionResults/${encodeURIComponent(sessionId)}/clips`;
    const body = (await this.get(url, this.transport.scope(options))) as ClipsResponse | null;
    if (!Array.isArray(body?.clips)) throw unexpectedBody(url, 'not a list of clips');
    return body;
  }

  /**
   * A clip's state: GENERATING (ask again in a few seconds), GENERATED with a `clipUrl` that
   * works for 15 minutes, or ERROR (this call started a new attempt; ask again).
   */
  async clip(sessionId: string, clipUuid: string, options?: CallOptions): Promise<ClipDetails> {
    const url = `${this.baseUrl}/api/v2/sessionResults/${encodeURIComponent(sessionId)}/clips/${encodeURIComponent(clipUuid)}`;
    const body = (await this.get(url, this.transport.scope(options))) as ClipDetails | null;
    if (typeof body?.status !== 'string') throw unexpectedBody(url, 'not a clip');
    return body;
  }

  /** The highlight reels of a test, and whether it has clips at all. */
  async highlightReels(testId: string, options?: CallOptions): Promise<HighlightReelsResponse> {
    const url = `${this.baseUrl}/api/v2/testResults/${encodeURIComponent(testId)}/highlightreels`;
    const body = (await this.get(url, this.transport.scope(options))) as HighlightReelsResponse | null;
    if (!Array.isArray(body?.reels)) throw unexpectedBody(url, 'not a list of highlight reels');
    return body;
  }

  /**
   * A highlight reel's state: GENERATING (ask again in a few seconds), GENERATED with a
   * `reelUrl` that works for 15 minutes, or ERROR (this call started a new attempt; ask again).
   */
  async highlightReel(testId: string, reelId: string, options?: CallOptions): Promise<ReelDetails> {
    const url = `${this.baseUrl}/api/v2/testResults/${encodeURIComponent(testId)}/highlightreels/${encodeURIComponent(reelId)}`;
    const body = (await this.get(url, this.transport.scope(options))) as ReelDetails | null;
    if (typeof body?.status !== 'string') throw unexpectedBody(url, 'not a highlight reel');
    return body;
  }

  /**
   * Every session of a test (as {@link ResultsClient.sessionResults}) with its details,
   * fetched `concurrency` at a time (default 4) and yielded in listing order. The rate limit
   * is honoured as on every call: a 429 waits out its Retry-After.
   */
  sessionsWithDetails(testId: string, options: SessionsWithDetailsOptions = {}): AsyncGenerator<SessionWithDetails, void, undefined> {
    const call: CallOptions = {
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    };
    return pairWithDetails(this.sessionResults(testId, options), (id, o) => this.sessionDetails(id, o), options.concurrency ?? 4, call);
  }

  /**
   * A session's transcript, as WebVTT text (save it as a `.vtt` file). A session without a
   * transcript, an unknown session and one outside the caller's workspaces are the same
   * {@link ResultsApiError} with status 404, as the API does not tell them apart.
   *
   * @example
   * ```ts
   * const vtt = await client.transcript(sessionId);
   * ```
   */
  async transcript(sessionId: string, options?: CallOptions): Promise<string> {
    const url = `${this.baseUrl}${FORMS[this.form].sessionsPath}/${encodeURIComponent(sessionId)}/transcript`;
    const text = (await this.get(url, this.transport.scope(options), 'text')) as string;
    if (!/^\uFEFF?WEBVTT(?=[ \t\r\n]|$)/.test(text)) throw unexpectedBody(url, 'not a WebVTT transcript');
    return text;
  }

  /**
   * An authenticated GET of a JSON body (or, with `text`, of a WebVTT one). A 401 means the
   * token was refused (expired early, revoked, keys rotated): drop it, mint a new one and try
   * once more. A second 401 is not the token's age and is thrown.
   */
  private async get(url: string, scope: CallScope, body: 'json' | 'text' = 'json'): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      const token = await this.tokens.get(scope.signal);
      try {
        const headers = this.authHeaders(token.accessToken);
        if (body === 'text') return await this.transport.text({ method: 'GET', url, headers: { ...headers, accept: 'text/vtt' }, repeatable: true }, scope);
        return await this.transport.json({ method: 'GET', url, headers, repeatable: true }, scope);
      } catch (err) {
        if (!(err instanceof ResultsApiError && err.status === 401) || attempt > 0) throw err;
        this.tokens.invalidate(token.accessToken);
      }
    }
  }

  private authHeaders(accessToken: string): Record<string, string> {
    return this.form === 'A'
      ? { token: accessToken, accept: 'application/json' }
      : { authorization: `Bearer ${accessToken}`, accept: 'application/json' };
  }

  /**
   * RFC 6749 §4.4.2: the client-credentials grant, client authenticated by form keys
   * (§2.3.1, as the service documents it). Runs with the client's own time limit, not a
   * caller's signal, because concurrent callers share it.
   */
  private async mintToken(now: () => number): Promise<AccessTokenInfo> {
    const requestedAt = now();
    const body = new URLSearchParams({
      grant_type: 'client_credentials',
      scope: FORMS[this.form].scope,
      client_id: this.options.clientId,
      client_secret: this.options.clientSecret,
    });
    const json = await this.transport.json(
      {
        method: 'POST',
        url: this.tokenUrl,
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: body.toString(),
        // Repeating a client-credentials grant only mints another token.
        repeatable: true,
      },
      this.transport.scope(),
    );
    const t = json as { access_token?: unknown; expires_in?: unknown; token_type?: unknown; scope?: unknown };
    if (typeof t.access_token !== 'string' || typeof t.expires_in !== 'number' || !(t.expires_in > 0)) {
      throw unexpectedBody(this.tokenUrl, 'not a token response', 'POST');
    }
    return {
      accessToken: t.access_token,
      tokenType: typeof t.token_type === 'string' ? t.token_type : 'Bearer',
      scope: typeof t.scope === 'string' ? t.scope : FORMS[this.form].scope,
      // Counted from before the request was sent, so the token is never thought fresher than it is.
      expiresAt: requestedAt + t.expires_in * 1000,
    };
  }
}

function httpBase(value: string, name: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`ResultsClient: ${name} must be an absolute http(s) URL (got ${JSON.stringify(value)})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`ResultsClient: ${name} must be an http(s) URL (got ${JSON.stringify(value)})`);
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

function isSessionResultsPage(body: unknown): body is SessionResultsPage {
  const page = body as SessionResultsPage | null;
  return (
    typeof page === 'object' &&
    page !== null &&
    Array.isArray(page.sessions) &&
    typeof page.meta?.pagination?.totalCount === 'number'
  );
}

function unexpectedBody(url: string, reason: string, method = 'GET'): ResultsApiError {
  return new ResultsApiError({ method, url: url.split('?')[0]!, status: 200, reason });
}
