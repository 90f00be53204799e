"""Sessions as a pandas DataFrame. pandas is optional: only this module needs it."""

from __future__ import annotations

from typing import Any, Dict, Iterable

#: The columns of a session, in the API's order.
COLUMNS = ["sessionId", "audienceId", "status", "startTime", "finishTime"]


def require_pandas() -> Any:
    """The pandas module, or an ImportError that says what to install."""
    try:
        import pandas
    except ImportError as err:
        raise ImportError(
            "to_dataframe() needs pandas, which is not installed: "
            "pip install 'results-api-client[pandas]' (or pandas; on Debian/Ubuntu: apt-get install python3-pandas)"
        ) from err
    return pandas


def sessions_to_dataframe(sessions: Iterable[Dict[str, Any]]):
    """A DataFrame of sessions with the API's columns; startTime and finishTime as UTC datetimes."""
    pandas = require_pandas()
    frame = pandas.DataFrame.from_records(list(sessions), columns=COLUMNS)
    for column in ("startTime", "finishTime"):
        frame[column] = pandas.to_datetime(frame[column], utc=True)
    return frame
