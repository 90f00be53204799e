"""Python client of the Results API: the same behaviour as the TypeScript SDK (@results-api/client).

Token cache and refresh, one re-mint on 401, retries of 429 (as long as the server asks) and of
lost responses and 5xx (with backoff), a page iterator, transcripts, video links, session details
and QXscores, typed errors, and ``to_dataframe()`` when pandas is installed.
"""

from .client import FORMS, MAX_OFFSET, MAX_PAGE_SIZE, ResultsClient, SessionWithDetails
from .dataframe import sessions_to_dataframe
from .errors import (
    OAuthErrorDetails,
    ProblemDetails,
    ResultsApiError,
    ResultsError,
    ResultsNetworkError,
    ResultsPagingLimitError,
    ResultsTimeoutError,
)
from .token_cache import AccessTokenInfo

__all__ = [
    "FORMS",
    "MAX_OFFSET",
    "MAX_PAGE_SIZE",
    "AccessTokenInfo",
    "OAuthErrorDetails",
    "ProblemDetails",
    "ResultsApiError",
    "ResultsClient",
    "ResultsError",
    "ResultsNetworkError",
    "ResultsPagingLimitError",
    "ResultsTimeoutError",
    "SessionWithDetails",
    "sessions_to_dataframe",
]
