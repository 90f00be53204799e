"""A scripted HTTP server on 127.0.0.1 for what the real server never does on purpose
(429 bursts, 5xx, dropped connections, hanging, refused tokens), and a client pointed at it."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Dict, List, Optional
from urllib.parse import parse_qs, urlsplit

from results_api_client import ResultsClient

SERVER_ID = "aus1a2b3c4d5e6f7g8h9"


@dataclass
class Sent:
    """One request as the client sent it."""

    method: str
    path: str
    query: Dict[str, str]
    headers: Dict[str, str]
    form: Dict[str, str]


@dataclass
class Reply:
    status: int
    body: object = None
    headers: Dict[str, str] = field(default_factory=dict)
    #: Drop the connection instead of answering.
    drop: bool = False
    #: Set when the answer should never come (the handler waits for it to be set).
    hang: Optional[threading.Event] = None
    #: Raw body bytes instead of JSON.
    raw: Optional[bytes] = None
    #: Seconds between the bytes of the body, for a server that sends it slowly.
    trickle: float = 0.0
    #: Seconds to wait before answering (other requests are answered meanwhile).
    delay: float = 0.0


def reply(status: int, body: object = None, *, drop=False, hang=None, raw=None, trickle=0.0, delay=0.0, **headers: str) -> Reply:
    """An answer; header names are given with underscores for dashes (retry_after=...); a
    content_type given replaces the one of the body's kind."""
    return Reply(status, body, {k.replace("_", "-"): v for k, v in headers.items()}, drop, hang, raw, trickle, delay)


def problem(status: int, title: str, detail: str) -> dict:
    return {"type": f"urn:results-api:problem:{title.lower().replace(' ', '-')}", "title": title, "status": status, "detail": detail}


def token_reply(n: int, expires_in: float = 3600) -> Reply:
    return reply(200, {"token_type": "Bearer", "expires_in": expires_in, "access_token": f"stub-token-{n}", "scope": "studies:read"})


class Stub:
    """Token requests are answered by ``token`` (default: a fresh token each time); every other
    request by ``api``: a list of replies taken in order (the last repeats) or a function of
    the request."""

    def __init__(self, api=None, token: Optional[Callable[[int, Sent], Reply]] = None) -> None:
        self.sent: List[Sent] = []
        self.api = api if api is not None else [reply(200, {})]
        self.token = token or (lambda n, _sent: token_reply(n))
        self._lock = threading.Lock()
        self._api_hits = 0
        self._token_hits = 0
        self._hangs: List[threading.Event] = []
        self._in_flight = 0
        #: The most API (not token) requests that were being answered at once.
        self.max_in_flight = 0
        #: Set when a client closed the connection while a trickled body was being sent.
        self.abandoned_bodies = threading.Event()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                stub._handle(self)

            do_POST = do_GET

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        #: Clients made by client_for, closed with the stub.
        self.clients: List[ResultsClient] = []

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("content-length") or 0)
        raw = handler.rfile.read(length).decode() if length else ""
        parts = urlsplit(handler.path)
        sent = Sent(
            handler.command,
            parts.path,
            {k: v[-1] for k, v in parse_qs(parts.query).items()},
            {k.lower(): v for k, v in handler.headers.items()},
            {k: v[-1] for k, v in parse_qs(raw).items()},
        )
        with self._lock:
            self.sent.append(sent)
            is_token = parts.path.endswith("/v1/token")
            if is_token:
                self._token_hits += 1
                answer = self.token(self._token_hits, sent)
            else:
                index = self._api_hits
                self._api_hits += 1
                self._in_flight += 1
                self.max_in_flight = max(self.max_in_flight, self._in_flight)
                answer = self.api(sent) if callable(self.api) else self.api[min(index, len(self.api) - 1)]
        try:
            if answer.delay:
                time.sleep(answer.delay)
            self._send(handler, answer)
        finally:
            if not is_token:
                with self._lock:
                    self._in_flight -= 1

    def _send(self, handler: BaseHTTPRequestHandler, answer: Reply) -> None:
        if answer.hang is not None:
            self._hangs.append(answer.hang)
            answer.hang.wait(30)
            return
        if answer.drop:
            handler.close_connection = True
            handler.connection.close()
            return
        if answer.raw is not None:
            data, kind = answer.raw, "text/plain"
        else:
            data = b"" if answer.body is None else json.dumps(answer.body).encode()
            kind = "application/problem+json" if answer.status >= 400 else "application/json"
        headers = dict(answer.headers)
        kind = headers.pop("content-type", kind)
        handler.send_response(answer.status)
        handler.send_header("content-type", kind)
        handler.send_header("content-length", str(len(data)))
        for name, value in headers.items():
            handler.send_header(name, value)
        handler.end_headers()
        if not answer.trickle:
            handler.wfile.write(data)
            return
        try:
            for i in range(len(data)):
                handler.wfile.write(data[i : i + 1])
                handler.wfile.flush()
                time.sleep(answer.trickle)
        except OSError:
            self.abandoned_bodies.set()  # the client hung up before the whole body was sent

    def token_requests(self) -> List[Sent]:
        return [s for s in self.sent if s.path.endswith("/v1/token")]

    def api_requests(self) -> List[Sent]:
        return [s for s in self.sent if not s.path.endswith("/v1/token")]

    def close(self) -> None:
        for client in self.clients:
            client.close()
        for event in self._hangs:
            event.set()
        self._server.shutdown()
        self._server.server_close()


class RecordingSleep:
    """A wait that returns at once and remembers how long it was asked to wait."""

    def __init__(self) -> None:
        self.waits: List[float] = []

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def client_for(stub: Stub, form: str = "B", **options) -> ResultsClient:
    """A client of the stub in ``form`` whose retries do not wait (see ``options['sleep']``)."""
    options.setdefault("sleep", RecordingSleep())
    if form == "B":
        options.setdefault("authorization_server_id", SERVER_ID)
    client = ResultsClient(stub.url, stub.url, "client-id", "client-secret", form=form, **options)
    stub.clients.append(client)
    return client


def empty_page(test_id: str) -> dict:
    return {"testId": test_id, "sessions": [], "meta": {"pagination": {"limit": 25, "offset": 0, "totalCount": 0}}}
