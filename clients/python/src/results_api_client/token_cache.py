"""One cached access token, shared by every thread of a client (as packages/client/src/token-cache.ts)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Callable, Optional

#: Renew this long (seconds) before the token expires, so no request leaves with a token about to lapse.
REFRESH_MARGIN = 60.0


@dataclass(frozen=True)
class AccessTokenInfo:
    """An access token and what the authorization server said about it."""

    #: The token itself (a JWT). Never log it.
    access_token: str
    #: Always ``Bearer``.
    token_type: str
    #: The scope granted.
    scope: str
    #: When the token expires, in epoch seconds (by the client's clock).
    expires_at: float

    def __repr__(self) -> str:
        # Keeps the token out of logs, tracebacks and notebook output.
        return f"AccessTokenInfo(token_type={self.token_type!r}, scope={self.scope!r}, expires_at={self.expires_at!r})"


class TokenCache:
    """Holds one access token, reused until a minute before it expires (halfway, for tokens
    living under two minutes); then the next caller mints a new one. Threads asking at once
    share one token request: the others wait for it instead of minting their own.
    """

    def __init__(self, mint: Callable[[], AccessTokenInfo], now: Callable[[], float]) -> None:
        self._mint = mint
        self._now = now
        self._lock = threading.Lock()
        self._token: Optional[AccessTokenInfo] = None
        self._refresh_at = 0.0

    def get(self) -> AccessTokenInfo:
        """A token fresh for at least the margin, minting one if needed."""
        with self._lock:
            if self._token is not None and self._now() < self._refresh_at:
                return self._token
            minted_at = self._now()
            token = self._mint()
            margin = min(REFRESH_MARGIN, (token.expires_at - minted_at) / 2)
            self._token, self._refresh_at = token, token.expires_at - margin
            return token

    def invalidate(self, access_token: str) -> None:
        """Forgets ``access_token`` because the API refused it. A token minted meanwhile by
        another thread is kept: it was not the one refused."""
        with self._lock:
            if self._token is not None and self._token.access_token == access_token:
                self._token = None
