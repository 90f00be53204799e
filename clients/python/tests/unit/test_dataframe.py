"""to_dataframe(): sessions as a pandas DataFrame, and a clear error when pandas is missing."""

import sys
import unittest
from unittest import mock

from stub import Stub, client_for, reply

TEST_ID = "9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f"
ROWS = [
    {"sessionId": "b", "audienceId": "aud-1", "status": "COMPLETE", "startTime": "2024-11-21T12:23:52.614Z", "finishTime": "2024-11-21T12:25:22.614Z"},
    {"sessionId": "a", "audienceId": None, "status": "INCOMPLETE", "startTime": "2024-11-21T12:22:52.614Z", "finishTime": None},
]


def page(rows):
    return reply(200, {"testId": TEST_ID, "sessions": rows, "meta": {"pagination": {"limit": 500, "offset": 0, "totalCount": len(rows)}}})


try:
    import pandas
except ImportError:  # pragma: no cover - CI installs python3-pandas
    pandas = None


class DataFrameTest(unittest.TestCase):
    def stub(self, api) -> Stub:
        stub = Stub(api)
        self.addCleanup(stub.close)
        return stub

    @unittest.skipIf(pandas is None, "pandas is not installed (Debian: python3-pandas)")
    def test_every_session_as_a_row_with_utc_datetimes(self):
        stub = self.stub([page(ROWS)])
        frame = client_for(stub).to_dataframe(TEST_ID)
        self.assertEqual(list(frame.columns), ["sessionId", "audienceId", "status", "startTime", "finishTime"])
        self.assertEqual(list(frame["sessionId"]), ["b", "a"])
        self.assertEqual(frame["startTime"][0], pandas.Timestamp("2024-11-21T12:23:52.614Z"))
        self.assertEqual(str(frame["startTime"].dt.tz), "UTC")
        self.assertTrue(pandas.isna(frame["finishTime"][1]))
        self.assertTrue(pandas.isna(frame["audienceId"][1]))

    @unittest.skipIf(pandas is None, "pandas is not installed (Debian: python3-pandas)")
    def test_a_test_without_sessions_is_an_empty_frame_with_the_columns(self):
        stub = self.stub([page([])])
        frame = client_for(stub).to_dataframe(TEST_ID)
        self.assertEqual(len(frame), 0)
        self.assertEqual(list(frame.columns), ["sessionId", "audienceId", "status", "startTime", "finishTime"])

    def test_without_pandas_the_error_names_it_and_nothing_is_sent(self):
        stub = self.stub([page(ROWS)])
        client = client_for(stub)
        # None in sys.modules makes `import pandas` raise ImportError, as if it were not installed.
        with mock.patch.dict(sys.modules, {"pandas": None}), self.assertRaises(ImportError) as caught:
            client.to_dataframe(TEST_ID)
        self.assertIn("to_dataframe() needs pandas", str(caught.exception))
        self.assertIn("python3-pandas", str(caught.exception))
        self.assertEqual(stub.sent, [])


if __name__ == "__main__":
    unittest.main()
