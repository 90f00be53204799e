"""Sends requests with the retry policy and turns failures into the client's errors
(as packages/client/src/transport.ts)."""

from __future__ import annotations

import json
import math
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, Optional, Tuple

import requests

from .errors import ResultsApiError, ResultsNetworkError, ResultsTimeoutError, parse_error_body
from .retry import RetryPolicy, retry_after_seconds, retry_delay


@dataclass(frozen=True)
class CallScope:
    """A call's time limit, retries and waits included."""

    #: Seconds; None means no limit.
    timeout: Optional[float]
    #: ``time.monotonic()`` after which the call gives up (inf without a limit).
    deadline: float


class Transport:
    def __init__(
        self,
        *,
        session: requests.Session,
        policy: RetryPolicy,
        sleep: Callable[[float], None],
        now: Callable[[], float],
        timeout: Optional[float],
    ) -> None:
        self._session = session
        self._policy = policy
        self._sleep = sleep
        self._now = now
        self._timeout = timeout

    def scope(self, timeout: Optional[float] = None) -> CallScope:
        """The client's time limit, or the call's own when given."""
        limit = self._timeout if timeout is None else timeout
        limited = limit is not None and math.isfinite(limit) and limit > 0
        return CallScope(limit if limited else None, time.monotonic() + limit if limited else math.inf)

    def json(
        self,
        method: str,
        url: str,
        headers: Dict[str, str],
        scope: CallScope,
        *,
        repeatable: bool,
        data: Optional[Dict[str, str]] = None,
    ) -> Any:
        """Sends the request, retrying as the policy allows, and returns its parsed JSON body.

        ``repeatable``: whether sending it twice is harmless, so a lost response or a 5xx may be retried.
        """
        response, content = self._send(method, url, headers, scope, repeatable=repeatable, data=data)
        body = _parse_json(content)
        if body is None:
            raise ResultsApiError(
                method=method,
                url=url.split("?")[0],
                status=response.status_code,
                reason="the body is not JSON",
                request_id=response.headers.get("x-request-id"),
            )
        return body

    def text(self, method: str, url: str, headers: Dict[str, str], scope: CallScope, *, repeatable: bool) -> str:
        """Like :meth:`json`, returning the body as text decoded as UTF-8 (a WebVTT transcript,
        which is always UTF-8 whatever the ``content-type`` says)."""
        response, content = self._send(method, url, headers, scope, repeatable=repeatable)
        try:
            return content.decode("utf-8")
        except UnicodeDecodeError:
            raise ResultsApiError(
                method=method,
                url=url.split("?")[0],
                status=response.status_code,
                reason="the body is not UTF-8 text",
                request_id=response.headers.get("x-request-id"),
            ) from None

    def _send(
        self,
        method: str,
        url: str,
        headers: Dict[str, str],
        scope: CallScope,
        *,
        repeatable: bool,
        data: Optional[Dict[str, str]] = None,
    ) -> Tuple[requests.Response, bytes]:
        """Sends the request until it succeeds (a 2xx, returned with its body read) or fails for good (raised)."""
        where = url.split("?")[0]
        attempt = 0
        while True:
            remaining = scope.deadline - time.monotonic()
            if remaining <= 0:
                raise ResultsTimeoutError(method, where, scope.timeout or 0)
            try:
                response = self._session.request(
                    method,
                    url,
                    headers=headers,
                    data=data,
                    timeout=None if math.isinf(remaining) else remaining,
                    stream=True,
                    # Credentials travel in headers (form A's `token:` would survive a redirect
                    # to another host); the API never redirects, so a redirect is an error.
                    allow_redirects=False,
                )
                content = _read_before(response, scope.deadline)
            except (requests.Timeout, _OutOfTime) as err:
                # The socket timeout is the time left of the call: the call is out of time.
                raise ResultsTimeoutError(method, where, scope.timeout or 0) from err
            except requests.RequestException as err:
                self._wait_or_raise(None, {}, attempt, repeatable, scope, lambda: ResultsNetworkError(method, where, err), err)
                attempt += 1
                continue

            if 200 <= response.status_code < 300:
                return response, content
            error = ResultsApiError(
                method=method,
                url=where,
                status=response.status_code,
                retry_after_seconds=retry_after_seconds(response.headers),
                request_id=response.headers.get("x-request-id"),
                reason=_redirect_reason(response),
                **parse_error_body(_parse_json(content)),
            )
            self._wait_or_raise(response.status_code, response.headers, attempt, repeatable, scope, lambda: error, None)
            attempt += 1

    def _wait_or_raise(self, status, headers, attempt, repeatable, scope, error, cause) -> None:
        """Waits before the next attempt, or raises when the failure is final (or a wait would outlast the call)."""
        delay = retry_delay(status, headers, attempt, repeatable=repeatable, policy=self._policy, now=self._now())
        # Waiting past the time limit would only turn a clear answer (e.g. 429) into a timeout.
        if delay is None or time.monotonic() + delay > scope.deadline:
            raise error() from cause
        self._sleep(delay)


def _redirect_reason(response: requests.Response) -> Optional[str]:
    if not 300 <= response.status_code < 400:
        return None
    return f"redirects are not followed (Location: {response.headers.get('location', 'none')}); check base_url and auth_url"


class _OutOfTime(Exception):
    """The call's deadline passed while the body was still arriving."""


def _read_before(response: requests.Response, deadline: float) -> bytes:
    """The body, unless the call's deadline passes first.

    A socket timeout bounds each read, not their sum, so a server sending the body slowly could
    hold the call far past its limit; at the deadline the socket is shut down instead, which
    ends a read blocked on it. (Headers are bounded per read only: they are a few hundred bytes.)
    """
    if math.isinf(deadline):
        try:
            return response.content
        finally:
            response.close()
    sock = getattr(getattr(response.raw, "connection", None), "sock", None)
    expired = threading.Event()

    def expire() -> None:
        expired.set()
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    watchdog = threading.Timer(max(0.0, deadline - time.monotonic()), expire)
    watchdog.daemon = True
    watchdog.start()
    try:
        content = response.content
    except requests.RequestException as err:
        if expired.is_set():
            raise _OutOfTime() from err
        raise
    finally:
        watchdog.cancel()
        response.close()
    # A shut-down socket can also look like the end of a (truncated) body.
    if expired.is_set():
        raise _OutOfTime()
    return content


def _parse_json(content: bytes) -> Any:
    if not content:
        return None
    try:
        return json.loads(content)
    except ValueError:
        return None
