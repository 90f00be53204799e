"""The Results API client (as packages/client/src/results-client.ts)."""

from __future__ import annotations

import math
import re
import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable, Deque, Dict, Iterator, List, NamedTuple, Optional, Tuple
from urllib.parse import quote, urlencode, urlsplit

import requests

from .errors import ResultsApiError
from .retry import RetryPolicy
from .token_cache import AccessTokenInfo, TokenCache
from .transport import CallScope, Transport

#: The largest page the Results API serves.
MAX_PAGE_SIZE = 500
#: The deepest offset the Results API serves: a listing reaches the newest 10 000 + page size sessions.
MAX_OFFSET = 10_000

DEFAULT_TIMEOUT = 30.0

#: What each request form means on the wire.
FORMS = {
    "A": {"scope": "public_api.read", "sessions_path": "/v2/sessionResults"},
    "B": {"scope": "studies:read", "sessions_path": "/api/v2/sessionResults"},
}

#: The query parameters of one page, by keyword argument.
_PAGE_PARAMS = {"limit": "limit", "offset": "offset", "rows_per_page": "rowsPerPage", "page_number": "pageNumber"}

SessionResult = Dict[str, Any]
SessionResultsPage = Dict[str, Any]
#: What one session contains (GET /api/v3/sessionResults/{sessionId}).
SessionDetails = Dict[str, Any]
#: The QXscores of a test (GET /api/v2/testResults/{testId}/qxScores).
QxScores = Dict[str, Any]

#: Details requests :meth:`ResultsClient.sessions_with_details` keeps in flight by default, and at most.
DEFAULT_DETAILS_CONCURRENCY = 4
MAX_DETAILS_CONCURRENCY = 16

#: A WebVTT file starts with "WEBVTT" (after an optional byte order mark), then a space, tab or line end.
_WEBVTT_HEADER = re.compile(r"\A\ufeff?WEBVTT(?=[ \t\r\n]|\Z)")


class SessionWithDetails(NamedTuple):
    """A session of the listing with what it contains; unpacks as ``session, details``."""

    session: SessionResult
    details: SessionDetails


#: The Legacy (v1) family, as the real service serves it.
LEGACY_BASE = "/usertesting/api/v1"


class ResultsClient:
    """A client of the Results API for one set of client credentials.

    It mints access tokens with the client-credentials grant and keeps one cached, renewing it
    a minute before expiry; threads calling at once share one token request. A token the API
    refuses (401) is dropped and re-minted once. Rate-limited requests (429) are retried after
    the time the server asks; lost responses and 5xx answers of reads are retried with backoff.
    Every call has a time limit (``timeout``, seconds, retries and waits included).

    Two request forms:

    - ``"A"`` (earlier): the ``default`` authorization server, scope ``public_api.read``, the
      ``token:`` header, ``limit``/``offset`` paging on ``/v2/sessionResults``.
    - ``"B"`` (current): a custom authorization server, scope ``studies:read``,
      ``Authorization: Bearer``, ``rowsPerPage``/``pageNumber`` paging on ``/api/v2/sessionResults``.

    ``form`` defaults to B when ``authorization_server_id`` is given, otherwise A.

    >>> client = ResultsClient(auth_url, base_url, client_id, client_secret, authorization_server_id=server_id)
    >>> for session in client.session_results(test_id):
    ...     print(session["sessionId"])
    """

    def __init__(
        self,
        auth_url: str,
        base_url: str,
        client_id: str,
        client_secret: str,
        *,
        authorization_server_id: Optional[str] = None,
        form: Optional[str] = None,
        timeout: Optional[float] = DEFAULT_TIMEOUT,
        max_retries: int = RetryPolicy.max_retries,
        session: Optional[requests.Session] = None,
        now: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
        random: Optional[Callable[[], float]] = None,
    ) -> None:
        """Checks the arguments; raises ``ValueError`` naming the first one that is wrong. Sends nothing.

        ``timeout``: default time limit of one call in seconds (None: no limit).
        ``max_retries``: how many times a failed request is retried before its error is raised.
        ``session``: the ``requests.Session`` to send with (proxies, certificates, adapters).
        ``now``, ``sleep``, ``random``: the clock (epoch seconds), the wait before a retry and
        the jitter's source, for tests.
        """
        self._auth_url = _http_base(auth_url, "auth_url")
        self._base_url = _http_base(base_url, "base_url")
        if not client_id:
            raise ValueError("ResultsClient: client_id is required")
        if not client_secret:
            raise ValueError("ResultsClient: client_secret is required")
        if form is not None and form not in FORMS:
            raise ValueError(f'ResultsClient: form must be "A" or "B" (got {form!r})')
        #: The request form in use, "A" or "B".
        self.form = form or ("B" if authorization_server_id else "A")
        if self.form == "B" and not authorization_server_id:
            raise ValueError("ResultsClient: form B needs authorization_server_id (the custom authorization server id)")
        server_id = "default" if self.form == "A" else authorization_server_id
        self._token_url = f"{self._auth_url}/oauth2/{quote(str(server_id), safe='')}/v1/token"
        if not isinstance(max_retries, int) or isinstance(max_retries, bool) or max_retries < 0:
            raise ValueError("ResultsClient: max_retries must be an integer >= 0")
        if timeout is not None and not (timeout > 0):
            raise ValueError("ResultsClient: timeout must be > 0 seconds, or None for no limit")
        self._client_id = client_id
        self._client_secret = client_secret
        policy = RetryPolicy(max_retries=max_retries, **({"random": random} if random else {}))
        # A session given by the caller is the caller's to close.
        self._own_session = None if session else requests.Session()
        self._transport = Transport(session=session or self._own_session, policy=policy, sleep=sleep, now=now, timeout=timeout)
        self._now = now
        self._tokens = TokenCache(self._mint_token, now)

    def __repr__(self) -> str:
        # The secret stays out of notebook output and logs.
        return f"ResultsClient(form={self.form!r}, auth_url={self._auth_url!r}, base_url={self._base_url!r}, client_id={self._client_id!r})"

    def close(self) -> None:
        """Closes the connections this client opened (not those of a session passed in)."""
        if self._own_session is not None:
            self._own_session.close()

    def __enter__(self) -> "ResultsClient":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def get_access_token(self) -> str:
        """An access token for this client: the cached one while fresh, else a newly minted one."""
        return self._tokens.get().access_token

    def get_access_token_info(self) -> AccessTokenInfo:
        """Like :meth:`get_access_token`, with the token's scope and expiry."""
        return self._tokens.get()

    def list_session_results(
        self,
        test_id: str,
        *,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
        rows_per_page: Optional[int] = None,
        page_number: Optional[int] = None,
        timeout: Optional[float] = None,
    ) -> SessionResultsPage:
        """One page of the sessions of a test, newest first: ``{"testId", "sessions", "meta": {"pagination"}}``.

        Page with ``limit``/``offset`` or with ``rows_per_page``/``page_number`` (either works in
        both forms; not both at once).
        """
        given = {"limit": limit, "offset": offset, "rows_per_page": rows_per_page, "page_number": page_number}
        if (limit is not None or offset is not None) and (rows_per_page is not None or page_number is not None):
            raise ValueError("list_session_results: page with limit/offset or with rows_per_page/page_number, not both")
        params = {"testId": test_id}
        params.update({_PAGE_PARAMS[k]: str(v) for k, v in given.items() if v is not None})
        url = f"{self._base_url}{FORMS[self.form]['sessions_path']}?{urlencode(params)}"
        body = self._get(url, self._transport.scope(timeout))
        if not _is_session_results_page(body):
            raise _unexpected_body(url, "not a page of session results")
        return body

    def session_results(
        self,
        test_id: str,
        *,
        page_size: int = MAX_PAGE_SIZE,
        timeout: Optional[float] = None,
        on_page: Optional[Callable[[Dict[str, Any]], None]] = None,
        offset_bound: int = MAX_OFFSET,
    ) -> Iterator[SessionResult]:
        """Every session of a test, newest first, fetched page by page as the loop consumes them.

        Reads the v2 listing by offset; a test with more sessions than that listing reaches (see
        :data:`MAX_OFFSET`) is read through the v1 completed-sessions cursor instead (see
        :meth:`completed_sessions`), which has no depth limit and does not shift when sessions
        arrive. By offset, a session seen on an earlier page (pages shift when sessions arrive
        during the export) is not yielded twice.

        ``timeout``: the time limit of each page request. ``on_page``: called after each page
        arrives, before its sessions are yielded, with ``{"totalCount", "received", "via",
        "sessions", "page"}`` (``via`` is ``"offset"`` or ``"cursor"``; ``page`` the page as the
        API sent it), e.g. for a progress bar. ``offset_bound``: the deepest offset the v2
        listing serves (default and at most :data:`MAX_OFFSET`).
        """
        if not isinstance(page_size, int) or isinstance(page_size, bool) or not 1 <= page_size <= MAX_PAGE_SIZE:
            raise ValueError(f"session_results: page_size must be an integer from 1 to {MAX_PAGE_SIZE} (got {page_size!r})")
        if not isinstance(offset_bound, int) or isinstance(offset_bound, bool) or not 0 <= offset_bound <= MAX_OFFSET:
            raise ValueError(f"session_results: offset_bound must be an integer from 0 to {MAX_OFFSET} (got {offset_bound!r})")
        return self._iterate(test_id, page_size, offset_bound, timeout, on_page)

    def _iterate(self, test_id, page_size, offset_bound, timeout, on_page) -> Iterator[SessionResult]:
        # Bounded by what the offset listing reaches (offset_bound + page_size ids).
        seen: set = set()
        page_index = 0
        while True:
            offset = page_index * page_size
            if offset > offset_bound:
                # The test grew past the bound while we paged: the cursor reads the rest.
                yield from self._completed_sessions_of(test_id, timeout, on_page, seen)
                return
            if self.form == "A":
                page = self.list_session_results(test_id, limit=page_size, offset=offset, timeout=timeout)
            else:
                page = self.list_session_results(test_id, rows_per_page=page_size, page_number=page_index + 1, timeout=timeout)
            total_count = page["meta"]["pagination"]["totalCount"]
            if page_index == 0 and total_count > offset_bound + page_size:
                # Beyond what offsets reach: read it all by cursor, from the start, in the same order.
                yield from self._completed_sessions_of(test_id, timeout, on_page, seen)
                return
            fresh = [s for s in page["sessions"] if s.get("sessionId") not in seen]
            seen.update(s.get("sessionId") for s in fresh)
            if on_page:
                on_page({"totalCount": total_count, "received": len(seen), "via": "offset", "sessions": page["sessions"], "page": page})
            yield from fresh
            if len(page["sessions"]) < page_size or offset + page_size >= total_count:
                return
            page_index += 1

    def _completed_sessions_of(self, test_id, timeout, on_page, skip) -> Iterator[SessionResult]:
        """The rest of a test by the v1 cursor; sessions in ``skip`` were yielded already."""
        received = len(skip)
        after = None
        while True:
            page = self.completed_sessions(test_id, after=after, timeout=timeout)
            if not page["sessions"]:
                return
            sessions = [_as_session_result(s) for s in page["sessions"]]
            fresh = [s for s in sessions if s["sessionId"] not in skip]
            received += len(fresh)
            if on_page:
                on_page({"totalCount": page["completedSessionCount"], "received": received, "via": "cursor", "sessions": sessions, "page": page})
            yield from fresh
            after = page["sessions"][-1]["cursor"]

    def completed_sessions(
        self, test_id: str, *, after: Optional[str] = None, before: Optional[str] = None, timeout: Optional[float] = None
    ) -> Dict[str, Any]:
        """One page of the completed sessions of a test (Legacy v1), newest first:
        ``{"completedSessionCount", "sessions"}``, from the start, or after (or before) the session
        whose ``cursor`` is given. An empty page means done."""
        params = {k: v for k, v in (("after", after), ("before", before)) if v is not None}
        url = f"{self._base_url}{LEGACY_BASE}/studies/{quote(test_id, safe='')}/completed-sessions"
        if params:
            url += f"?{urlencode(params)}"
        body = self._get(url, self._transport.scope(timeout))
        if not isinstance(body, dict) or not _is_number(body.get("completedSessionCount")) or not isinstance(body.get("sessions"), list):
            raise _unexpected_body(url, "not a page of completed sessions")
        return body

    def to_dataframe(self, test_id: str, *, page_size: int = MAX_PAGE_SIZE, timeout: Optional[float] = None):
        """Every session of a test as a pandas DataFrame, newest first (needs pandas).

        Columns: sessionId, audienceId, status, startTime and finishTime (UTC datetimes;
        finishTime is NaT while unfinished). Raises ``ImportError`` naming pandas when it is
        not installed, before any request is sent.
        """
        from .dataframe import sessions_to_dataframe, require_pandas

        require_pandas()
        return sessions_to_dataframe(self.session_results(test_id, page_size=page_size, timeout=timeout))

    def video_download_url(self, session_id: str, *, timeout: Optional[float] = None) -> Dict[str, Any]:
        """A link to download the session's video: ``videoUrl`` (GET it without a token; Range
        requests work), ``sessionId``, ``expiresAt`` (ISO 8601, one hour after it was issued). A
        session without a video, or outside the caller's workspaces, is a 404 ResultsApiError."""
        url = f"{self._base_url}/api/v2/sessionResults/{quote(session_id, safe='')}/videoDownloadUrl"
        body = self._get(url, self._transport.scope(timeout))
        if not isinstance(body, dict) or not isinstance(body.get("videoUrl"), str) or not isinstance(body.get("expiresAt"), str):
            raise _unexpected_body(url, "not a video download link")
        return body

    def clips(self, session_id: str, *, timeout: Optional[float] = None) -> Dict[str, Any]:
        """The clips of a session's video (``studyUuid``, ``clips`` in the order they start, ``videoRegions``)."""
        url = f"{self._base_url}/api/v2/sessionResults/{quote(session_id, safe='')}/clips"
        body = self._get(url, self._transport.scope(timeout))
        if not isinstance(body, dict) or not isinstance(body.get("clips"), list):
            raise _unexpected_body(url, "not a list of clips")
        return body

    def clip(self, session_id: str, clip_uuid: str, *, timeout: Optional[float] = None) -> Dict[str, Any]:
        """A clip's ``status``: GENERATING (ask again in a few seconds), GENERATED with a ``clipUrl``
        that works for 15 minutes, or ERROR (this call started a new attempt; ask again)."""
        url = f"{self._base_url}/api/v2/sessionResults/{quote(session_id, safe='')}/clips/{quote(clip_uuid, safe='')}"
        body = self._get(url, self._transport.scope(timeout))
        if not isinstance(body, dict) or not isinstance(body.get("status"), str):
            raise _unexpected_body(url, "not a clip")
        return body

    def highlight_reels(self, test_id: str, *, timeout: Optional[float] = None) -> Dict[str, Any]:
        """The highlight reels of a test (``reels``) and whether it has clips (``studyWithClips``)."""
        url = f"{self._base_url}/api/v2/testResults/{quote(test_id, safe='')}/highlightreels"
        body = self._get(url, self._transport.scope(timeout))
        if not isinstance(body, dict) or not isinstance(body.get("reels"), list):
            raise _unexpected_body(url, "not a list of highlight reels")
        return body

    def highlight_reel(self, test_id: str, reel_id: str, *, timeout: Optional[float] = None) -> Dict[str, Any]:
        """A highlight reel's ``status`` and, once GENERATED, a ``reelUrl`` that works for 15 minutes."""
        url = f"{self._base_url}/api/v2/testResults/{quote(test_id, safe='')}/highlightreels/{quote(reel_id, safe='')}"
        body = self._get(url, self._transport.scope(timeout))
        if not isinstance(body, dict) or not isinstance(body.get("status"), str):
            raise _unexpected_body(url, "not a highlight reel")
        return body

    def workspaces(self, *, timeout: Optional[float] = None) -> List[Dict[str, Any]]:
        """The workspaces where the caller's email is a team member (Legacy v1: ``id``, ``name``, ``uuid``)."""
        url = f"{self._base_url}{LEGACY_BASE}/workspaces"
        listed = self._get(url, self._transport.scope(timeout))
        if not isinstance(listed, list):
            raise _unexpected_body(url, "not a list of workspaces")
        return listed

    def studies(self, workspace_uuid: str, *, timeout: Optional[float] = None) -> List[Dict[str, Any]]:
        """Every test ("study") of a workspace where the caller is a team member (Legacy v1),
        all pages of them; a study's ``uuid`` is the test id the session results take."""
        scope = self._transport.scope(timeout)
        studies: List[Dict[str, Any]] = []
        while True:
            after = studies[-1].get("cursor") if studies else None
            url = f"{self._base_url}{LEGACY_BASE}/workspaces/{quote(workspace_uuid, safe='')}"
            if after:
                url += f"?after={quote(str(after), safe='')}"
            page = self._get(url, scope)
            if not isinstance(page, list):
                raise _unexpected_body(url, "not a list of studies")
            if not page:
                return studies
            studies.extend(page)

    def transcript(self, session_id: str, *, timeout: Optional[float] = None) -> str:
        """A session's transcript, as WebVTT text (save it as a ``.vtt`` file, UTF-8).

        A session without a transcript, an unknown session and one outside the caller's
        workspaces are the same :class:`ResultsApiError` with status 404, as the API does not
        tell them apart.

        >>> with open(f"{session_id}.vtt", "w", encoding="utf-8") as out:
        ...     out.write(client.transcript(session_id))
        """
        url = f"{self._base_url}{FORMS[self.form]['sessions_path']}/{quote(session_id, safe='')}/transcript"
        text = self._get(url, self._transport.scope(timeout), "text")
        if not _WEBVTT_HEADER.match(text):
            raise _unexpected_body(url, "not a WebVTT transcript")
        return text

    def session_details(self, session_id: str, *, timeout: Optional[float] = None) -> SessionDetails:
        """What one session contains (v3): ``sessionId``, ``audienceId``, ``testPlanId``,
        ``sessionParticipant`` (its demographics), ``taskGroups`` and ``tasks`` with their
        responses. An unknown session, or one outside the caller's workspaces, is a 404
        :class:`ResultsApiError`."""
        url = f"{self._base_url}/api/v3/sessionResults/{quote(session_id, safe='')}"
        body = self._get(url, self._transport.scope(timeout))
        if not isinstance(body, dict) or not isinstance(body.get("tasks"), list) or not isinstance(body.get("taskGroups"), list):
            raise _unexpected_body(url, "not session details")
        return body

    def qx_scores(self, test_id: str, *, timeout: Optional[float] = None) -> QxScores:
        """The QXscores of a test, computed by the service from its completed sessions' answers:
        ``testId``, ``qxScores`` (one per QX task group: ``qxScore``, ``components``, ``values``)
        and ``meta`` (``totalQxTasks``, ``completes``)."""
        url = f"{self._base_url}/api/v2/testResults/{quote(test_id, safe='')}/qxScores"
        body = self._get(url, self._transport.scope(timeout))
        meta = body.get("meta") if isinstance(body, dict) else None
        if not isinstance(meta, dict) or not isinstance(body.get("qxScores"), list) or not _is_number(meta.get("completes")):
            raise _unexpected_body(url, "not QXscores")
        return body

    def search(
        self,
        q: str,
        *,
        test_id: Optional[str] = None,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
        timeout: Optional[float] = None,
    ) -> Dict[str, Any]:
        """Full-text search over the transcripts and answers of every test the caller may see, or
        of ``test_id``'s (an extension of this service: ``GET /api/v2/search``). One page, best
        first: ``query``, ``hits`` (``sessionId``, ``testId``, ``kind``, ``taskId``, ``startMs``,
        ``endMs``, ``speaker``, ``snippet``) and ``meta`` (``limit``, ``offset``, ``hasMore``)."""
        params: Dict[str, Any] = {"q": q}
        if test_id is not None:
            params["testId"] = test_id
        if limit is not None:
            params["limit"] = limit
        if offset is not None:
            params["offset"] = offset
        url = f"{self._base_url}/api/v2/search?{urlencode(params)}"
        body = self._get(url, self._transport.scope(timeout))
        meta = body.get("meta") if isinstance(body, dict) else None
        if not isinstance(meta, dict) or not isinstance(body.get("hits"), list) or not isinstance(meta.get("hasMore"), bool):
            raise _unexpected_body(url, "not search hits")
        return body

    def sessions_with_details(
        self,
        test_id: str,
        *,
        concurrency: int = DEFAULT_DETAILS_CONCURRENCY,
        page_size: int = MAX_PAGE_SIZE,
        timeout: Optional[float] = None,
        on_page: Optional[Callable[[Dict[str, Any]], None]] = None,
    ) -> Iterator[SessionWithDetails]:
        """Every session of a test (as :meth:`session_results`) with its details (as
        :meth:`session_details`), yielded in listing order as ``(session, details)`` pairs.

        Up to ``concurrency`` details requests (1 to 16, default 4) are in flight at once, on
        threads of this generator's own pool; each is retried as every call is, so a 429 waits
        out its ``Retry-After``. A failed request is raised when its session's turn comes.
        Closing the generator early (``break``) cancels the requests not started yet.

        >>> for session, details in client.sessions_with_details(test_id, concurrency=8):
        ...     print(session["sessionId"], len(details["tasks"]))
        """
        if not isinstance(concurrency, int) or isinstance(concurrency, bool) or not 1 <= concurrency <= MAX_DETAILS_CONCURRENCY:
            raise ValueError(
                f"sessions_with_details: concurrency must be an integer from 1 to {MAX_DETAILS_CONCURRENCY} (got {concurrency!r})"
            )
        sessions = self.session_results(test_id, page_size=page_size, timeout=timeout, on_page=on_page)
        return self._pair_with_details(sessions, concurrency, timeout)

    def _pair_with_details(self, sessions: Iterator[SessionResult], concurrency: int, timeout: Optional[float]) -> Iterator[SessionWithDetails]:
        pending: Deque[Tuple[SessionResult, "Future[SessionDetails]"]] = deque()
        pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="results-api-details")
        try:
            for session in sessions:
                pending.append((session, pool.submit(self.session_details, session["sessionId"], timeout=timeout)))
                if len(pending) >= concurrency:
                    done, details = pending.popleft()
                    yield SessionWithDetails(done, details.result())
            while pending:
                done, details = pending.popleft()
                yield SessionWithDetails(done, details.result())
        finally:
            # On an early exit, requests not yet started are dropped; those running finish unobserved.
            pool.shutdown(wait=False, cancel_futures=True)

    def _get(self, url: str, scope: CallScope, body: str = "json") -> Any:
        """An authenticated GET of a JSON body (or, with ``"text"``, of a WebVTT one). A 401 means
        the token was refused (expired early, revoked, keys rotated): drop it, mint a new one and
        try once more. A second 401 is not the token's age and is raised."""
        attempt = 0
        while True:
            token = self._tokens.get()
            try:
                headers = self._auth_headers(token.access_token)
                if body == "text":
                    return self._transport.text("GET", url, {**headers, "accept": "text/vtt"}, scope, repeatable=True)
                return self._transport.json("GET", url, headers, scope, repeatable=True)
            except ResultsApiError as err:
                if err.status != 401 or attempt > 0:
                    raise
                self._tokens.invalidate(token.access_token)
                attempt += 1

    def _auth_headers(self, access_token: str) -> Dict[str, str]:
        if self.form == "A":
            return {"token": access_token, "accept": "application/json"}
        return {"authorization": f"Bearer {access_token}", "accept": "application/json"}

    def _mint_token(self) -> AccessTokenInfo:
        """RFC 6749 §4.4.2: the client-credentials grant, client authenticated by form keys
        (§2.3.1, as the service documents it), with the client's own time limit: threads
        waiting for it share it."""
        requested_at = self._now()
        body = self._transport.json(
            "POST",
            self._token_url,
            {"accept": "application/json"},
            self._transport.scope(),
            data={
                "grant_type": "client_credentials",
                "scope": FORMS[self.form]["scope"],
                "client_id": self._client_id,
                "client_secret": self._client_secret,
            },
            # Repeating a client-credentials grant only mints another token.
            repeatable=True,
        )
        token = body.get("access_token") if isinstance(body, dict) else None
        expires_in = body.get("expires_in") if isinstance(body, dict) else None
        if (
            not isinstance(token, str)
            or not isinstance(expires_in, (int, float))
            or isinstance(expires_in, bool)
            or not expires_in > 0
        ):
            raise _unexpected_body(self._token_url, "not a token response", "POST")
        token_type, scope = body.get("token_type"), body.get("scope")
        return AccessTokenInfo(
            access_token=token,
            token_type=token_type if isinstance(token_type, str) else "Bearer",
            scope=scope if isinstance(scope, str) else FORMS[self.form]["scope"],
            # Counted from before the request was sent, so the token is never thought fresher than it is.
            expires_at=requested_at + expires_in,
        )


def _http_base(value: str, name: str) -> str:
    parts = urlsplit(value) if isinstance(value, str) else None
    if parts is None or not parts.scheme or not parts.netloc:
        raise ValueError(f"ResultsClient: {name} must be an absolute http(s) URL (got {value!r})")
    if parts.scheme not in ("http", "https"):
        raise ValueError(f"ResultsClient: {name} must be an http(s) URL (got {value!r})")
    return f"{parts.scheme}://{parts.netloc}{parts.path}".rstrip("/")


def _is_session_results_page(body: Any) -> bool:
    if not isinstance(body, dict) or not isinstance(body.get("sessions"), list):
        return False
    meta = body.get("meta")
    pagination = meta.get("pagination") if isinstance(meta, dict) else None
    total = pagination.get("totalCount") if isinstance(pagination, dict) else None
    return isinstance(total, (int, float)) and not isinstance(total, bool) and math.isfinite(total)


def _as_session_result(s: Dict[str, Any]) -> SessionResult:
    """A v1 completed session in the v2 listing's shape (the same fields, the same time format)."""
    return {
        "sessionId": s.get("sessionUuid"),
        "audienceId": s.get("audienceId"),
        "status": "COMPLETE",
        "startTime": s.get("startTime"),
        "finishTime": s.get("completedDateTime"),
    }


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _unexpected_body(url: str, reason: str, method: str = "GET") -> ResultsApiError:
    return ResultsApiError(method=method, url=url.split("?")[0], status=200, reason=reason)
