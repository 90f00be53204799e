"""What a failed call raises, mirroring the TypeScript SDK (packages/client/src/errors.ts).

A response with an error status is a :class:`ResultsApiError`; a request that got no response
at all is a :class:`ResultsNetworkError`; a call that outlived its time limit is a
:class:`ResultsTimeoutError`. All derive from :class:`ResultsError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional


@dataclass(frozen=True)
class ProblemDetails:
    """RFC 9457 problem details, as the Results API returns them."""

    #: A stable URI naming the problem, e.g. ``urn:results-api:problem:not-found``.
    type: str
    title: str
    status: int
    #: What went wrong with this request, in words meant for the caller.
    detail: str


@dataclass(frozen=True)
class OAuthErrorDetails:
    """RFC 6749 §5.2 error response, as the authorization server returns it."""

    #: e.g. ``invalid_client``, ``invalid_scope``.
    error: str
    error_description: Optional[str] = None


class ResultsError(Exception):
    """Every error this client raises for a failed call."""


class ResultsApiError(ResultsError):
    """The service answered, and the answer is a failure: an error status or an unreadable body."""

    def __init__(
        self,
        *,
        method: str,
        url: str,
        status: int,
        problem: Optional[ProblemDetails] = None,
        oauth: Optional[OAuthErrorDetails] = None,
        retry_after_seconds: Optional[int] = None,
        request_id: Optional[str] = None,
        reason: Optional[str] = None,
    ) -> None:
        super().__init__(_describe(method, url, status, problem, oauth, reason))
        #: The HTTP status, e.g. 401, 404, 429 (200 when the body was not what was expected).
        self.status = status
        #: The HTTP method of the failed request.
        self.method = method
        #: The URL of the failed request, without its query.
        self.url = url
        #: The Results API's problem details, when the body was one.
        self.problem = problem
        #: The authorization server's error, when the body was one.
        self.oauth = oauth
        #: Seconds the server asked to wait (``Retry-After``), when it said.
        self.retry_after_seconds = retry_after_seconds
        #: The server's ``x-request-id``, for support requests.
        self.request_id = request_id


class ResultsNetworkError(ResultsError):
    """The request got no HTTP response (connection refused or reset, DNS failure), retries included.

    The underlying ``requests`` exception is the ``__cause__``.
    """

    def __init__(self, method: str, url: str, cause: BaseException) -> None:
        super().__init__(f"{method} {url} failed: {cause}")
        #: The HTTP method of the failed request.
        self.method = method
        #: The URL of the failed request, without its query.
        self.url = url


class ResultsTimeoutError(ResultsError, TimeoutError):
    """The call's time limit (retries and waits included) ran out before it was answered."""

    def __init__(self, method: str, url: str, timeout: float) -> None:
        super().__init__(f"{method} {url} timed out after {timeout:g} s")
        self.method = method
        self.url = url


class ResultsPagingLimitError(ResultsError):
    """No longer raised: ``session_results`` reads a test deeper than the offset listing reaches
    through the v1 cursor, as the TypeScript SDK does. Kept so that existing ``except`` clauses
    still import."""


#: What to check when the authorization server refuses the client: it never says which part was wrong
#: (RFC 6749 §5.2), so the message names the usual causes.
INVALID_CLIENT_HINT = (
    "Check the client id and secret (a revoked credential, or a secret rotated out and past its grace period, "
    "no longer works) and that auth_url names the server that issued them."
)


def _describe(
    method: str,
    url: str,
    status: int,
    problem: Optional[ProblemDetails],
    oauth: Optional[OAuthErrorDetails],
    reason: Optional[str],
) -> str:
    what = f"{method} {url} answered {status}"
    if problem:
        return f"{what} {problem.title}: {problem.detail}"
    if oauth:
        said = f"{what} {oauth.error}" + (f": {oauth.error_description}" if oauth.error_description else "")
        return f"{said} {INVALID_CLIENT_HINT}" if oauth.error == "invalid_client" else said
    return f"{what}: {reason}" if reason else what


def parse_error_body(body: Any) -> dict:
    """Reads an error body as problem details or an OAuth error, whichever it is (keyword arguments)."""
    if not isinstance(body, dict):
        return {}
    if isinstance(body.get("title"), str) and _is_int(body.get("status")):
        return {
            "problem": ProblemDetails(
                type=body["type"] if isinstance(body.get("type"), str) else "about:blank",
                title=body["title"],
                status=body["status"],
                detail=body["detail"] if isinstance(body.get("detail"), str) else "",
            )
        }
    if isinstance(body.get("error"), str):
        description = body.get("error_description")
        return {"oauth": OAuthErrorDetails(body["error"], description if isinstance(description, str) else None)}
    return {}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
