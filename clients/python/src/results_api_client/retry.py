"""When to try a request again, and how long to wait first (as packages/client/src/retry.ts).

- 429: wait as long as the server asked (``Retry-After``, RFC 9110 §10.2.3, in seconds or as
  an HTTP date; otherwise ``x-ratelimit-reset``), whatever the method: the server refused the
  request without acting on it.
- No response at all, or a 5xx: only when repeating the request is safe (GET, and the token
  request: a client-credentials grant repeated only mints another token), with capped
  exponential backoff and full jitter, so many clients recovering together do not retry in
  lockstep.
- Anything else is the caller's to handle: it is raised at once.
"""

from __future__ import annotations

import random as _random
import re
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Callable, Mapping, Optional

_DIGITS = re.compile(r"^\d+$")


@dataclass(frozen=True)
class RetryPolicy:
    """How retries are paced. Five retries wait at most 0.25 + 0.5 + 1 + 2 + 4 s of backoff."""

    max_retries: int = 5
    #: First backoff ceiling in seconds; doubles with every attempt.
    base_delay: float = 0.25
    #: Ceiling of any one backoff, in seconds.
    max_delay: float = 20.0
    #: A number in [0, 1), for the jitter.
    random: Callable[[], float] = _random.random


def retry_delay(
    status: Optional[int],
    headers: Mapping[str, str],
    attempt: int,
    *,
    repeatable: bool,
    policy: RetryPolicy,
    now: float,
) -> Optional[float]:
    """Seconds to wait before attempt ``attempt + 1``, or None when the failure must not be retried.

    ``status`` is None when no response came at all; ``attempt`` counts from 0; ``now`` is
    epoch seconds (for ``Retry-After`` given as a date).
    """
    if attempt >= policy.max_retries:
        return None
    if status == 429:
        requested = server_requested_delay(headers, now)
        return requested if requested is not None else backoff(attempt, policy)
    if not repeatable:
        return None
    if status is None or status >= 500:
        return backoff(attempt, policy)
    return None


def backoff(attempt: int, policy: RetryPolicy) -> float:
    """Full jitter: uniformly random between 0 and the capped exponential ceiling."""
    return policy.random() * min(policy.max_delay, policy.base_delay * 2**attempt)


def server_requested_delay(headers: Mapping[str, str], now: float) -> Optional[float]:
    """``Retry-After`` (seconds or HTTP date), else ``x-ratelimit-reset`` (seconds); None if neither."""
    retry_after = (headers.get("retry-after") or "").strip()
    if retry_after:
        if _DIGITS.match(retry_after):
            return float(retry_after)
        try:
            return max(0.0, parsedate_to_datetime(retry_after).timestamp() - now)
        except (TypeError, ValueError, IndexError):
            pass
    reset = (headers.get("x-ratelimit-reset") or "").strip()
    if _DIGITS.match(reset):
        return float(reset)
    return None


def retry_after_seconds(headers: Mapping[str, str]) -> Optional[int]:
    """Seconds from ``Retry-After``, when given as seconds."""
    value = (headers.get("retry-after") or "").strip()
    return int(value) if _DIGITS.match(value) else None
