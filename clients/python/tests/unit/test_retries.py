"""429, 5xx and lost responses: what is retried, how long the client waits, what it raises."""

import threading
import unittest
from email.utils import formatdate

from results_api_client import ResultsApiError, ResultsNetworkError, ResultsTimeoutError

from stub import RecordingSleep, Stub, client_for, empty_page, problem, reply, token_reply

TEST_ID = "9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f"
OK = reply(200, empty_page(TEST_ID))
RATE_LIMITED = problem(429, "Too Many Requests", "Slow down.")
UNAVAILABLE = problem(503, "Service Unavailable", "The database is unreachable.")


class RetryTest(unittest.TestCase):
    def stub(self, api, **kwargs) -> Stub:
        stub = Stub(api, **kwargs)
        self.addCleanup(stub.close)
        return stub

    def test_429_waits_as_long_as_retry_after_says_then_succeeds(self):
        stub = self.stub([reply(429, RATE_LIMITED, retry_after="7"), reply(429, RATE_LIMITED, retry_after="2"), OK])
        sleep = RecordingSleep()
        page = client_for(stub, sleep=sleep).list_session_results(TEST_ID)
        self.assertEqual(page["testId"], TEST_ID)
        self.assertEqual(sleep.waits, [7.0, 2.0])
        self.assertEqual(len(stub.api_requests()), 3)

    def test_429_retry_after_as_an_http_date(self):
        now = 1_700_000_000.0
        stub = self.stub([reply(429, RATE_LIMITED, retry_after=formatdate(now + 12, usegmt=True)), OK])
        sleep = RecordingSleep()
        client_for(stub, sleep=sleep, now=lambda: now).list_session_results(TEST_ID)
        self.assertEqual(sleep.waits, [12.0])

    def test_429_without_retry_after_uses_x_ratelimit_reset_else_backoff(self):
        stub = self.stub([reply(429, RATE_LIMITED, x_ratelimit_reset="4"), reply(429, RATE_LIMITED), OK])
        sleep = RecordingSleep()
        client_for(stub, sleep=sleep, random=lambda: 0.5).list_session_results(TEST_ID)
        # attempt 1's backoff ceiling is 0.5 s; half of it with this jitter.
        self.assertEqual(sleep.waits, [4.0, 0.25])

    def test_429_after_the_last_retry_is_raised_with_its_retry_after(self):
        stub = self.stub([reply(429, RATE_LIMITED, retry_after="1", x_request_id="req-429")])
        sleep = RecordingSleep()
        with self.assertRaises(ResultsApiError) as caught:
            client_for(stub, sleep=sleep, max_retries=2).list_session_results(TEST_ID)
        err = caught.exception
        self.assertEqual((err.status, err.retry_after_seconds, err.request_id), (429, 1, "req-429"))
        self.assertEqual(err.problem.title, "Too Many Requests")
        self.assertEqual(err.url, f"{stub.url}/api/v2/sessionResults")
        self.assertEqual(sleep.waits, [1.0, 1.0])
        self.assertEqual(len(stub.api_requests()), 3)

    def test_429_asking_to_wait_past_the_time_limit_is_raised_at_once(self):
        stub = self.stub([reply(429, RATE_LIMITED, retry_after="3600"), OK])
        sleep = RecordingSleep()
        with self.assertRaises(ResultsApiError) as caught:
            client_for(stub, sleep=sleep, timeout=5).list_session_results(TEST_ID)
        self.assertEqual(caught.exception.status, 429)
        self.assertEqual(sleep.waits, [])
        self.assertEqual(len(stub.api_requests()), 1)

    def test_5xx_is_retried_with_capped_exponential_backoff(self):
        stub = self.stub([reply(503, UNAVAILABLE, retry_after="1")] * 3 + [reply(500, None), OK])
        sleep = RecordingSleep()
        client_for(stub, sleep=sleep, random=lambda: 0.5).list_session_results(TEST_ID)
        # Full jitter under ceilings of 0.25, 0.5, 1, 2 s.
        self.assertEqual(sleep.waits, [0.125, 0.25, 0.5, 1.0])
        self.assertEqual(len(stub.api_requests()), 5)

    def test_5xx_after_the_last_retry_is_raised(self):
        stub = self.stub([reply(503, UNAVAILABLE, retry_after="1")])
        with self.assertRaises(ResultsApiError) as caught:
            client_for(stub, max_retries=3).list_session_results(TEST_ID)
        self.assertEqual(caught.exception.status, 503)
        self.assertEqual(caught.exception.problem.detail, "The database is unreachable.")
        self.assertEqual(caught.exception.retry_after_seconds, 1)
        self.assertEqual(len(stub.api_requests()), 4)

    def test_4xx_other_than_429_is_raised_at_once(self):
        for status, title in [(400, "Bad Request"), (403, "Forbidden"), (404, "Not Found")]:
            with self.subTest(status=status):
                stub = self.stub([reply(status, problem(status, title, "testId: not a UUID")), OK])
                sleep = RecordingSleep()
                with self.assertRaises(ResultsApiError) as caught:
                    client_for(stub, sleep=sleep).list_session_results(TEST_ID)
                err = caught.exception
                self.assertEqual((err.status, err.problem.title, err.problem.detail), (status, title, "testId: not a UUID"))
                self.assertIn(f"answered {status} {title}: testId: not a UUID", str(err))
                self.assertEqual(sleep.waits, [])
                self.assertEqual(len(stub.api_requests()), 1)

    def test_a_dropped_connection_is_retried(self):
        stub = self.stub([_drop(), OK])
        sleep = RecordingSleep()
        client_for(stub, sleep=sleep).list_session_results(TEST_ID)
        self.assertEqual(len(stub.api_requests()), 2)
        self.assertEqual(len(sleep.waits), 1)

    def test_no_response_after_the_last_retry_is_a_network_error(self):
        stub = self.stub([_drop()])
        with self.assertRaises(ResultsNetworkError) as caught:
            client_for(stub, max_retries=2).list_session_results(TEST_ID)
        self.assertEqual((caught.exception.method, caught.exception.url), ("GET", f"{stub.url}/api/v2/sessionResults"))
        self.assertIsNotNone(caught.exception.__cause__)
        self.assertEqual(len(stub.api_requests()), 3)

    def test_connection_refused_is_a_network_error(self):
        stub = self.stub([OK])
        client = client_for(stub, max_retries=1)
        stub.close()
        with self.assertRaises(ResultsNetworkError) as caught:
            client.get_access_token()
        self.assertEqual(caught.exception.method, "POST")
        self.assertTrue(caught.exception.url.endswith(f"/oauth2/{'aus1a2b3c4d5e6f7g8h9'}/v1/token"))

    def test_a_call_that_outlives_its_time_limit_raises_a_timeout(self):
        stub = self.stub([reply(200, hang=threading.Event())])
        # The client's limit bounds the token request too: leave it time for that on a busy machine.
        with self.assertRaises(ResultsTimeoutError) as caught:
            client_for(stub, timeout=1.5).list_session_results(TEST_ID)
        self.assertIsInstance(caught.exception, TimeoutError)
        self.assertEqual(len(stub.api_requests()), 1)

    def test_a_body_sent_slowly_cannot_hold_the_call_past_its_time_limit(self):
        # Each byte arrives well within a socket timeout; the whole body would take ~6 s.
        stub = self.stub([reply(200, empty_page(TEST_ID), trickle=0.05)])
        client = client_for(stub)
        client.get_access_token()
        with self.assertRaises(ResultsTimeoutError):
            client.list_session_results(TEST_ID, timeout=0.5)
        # It hung up mid-body, rather than read the whole body and then notice the time.
        self.assertTrue(stub.abandoned_bodies.wait(10))

    def test_a_call_time_limit_overrides_the_clients(self):
        stub = self.stub([reply(200, hang=threading.Event())])
        client = client_for(stub, timeout=None)
        client.get_access_token()
        with self.assertRaises(ResultsTimeoutError):
            client.list_session_results(TEST_ID, timeout=0.3)

    def test_the_token_request_is_retried_on_5xx_and_429(self):
        answers = [reply(503, UNAVAILABLE), reply(429, {"error": "slow_down"}, retry_after="3")]
        stub = self.stub([OK], token=lambda n, _s: answers[n - 1] if n <= len(answers) else token_reply(n))
        sleep = RecordingSleep()
        client_for(stub, sleep=sleep, random=lambda: 0.0).list_session_results(TEST_ID)
        self.assertEqual(sleep.waits, [0.0, 3.0])
        self.assertEqual(len(stub.token_requests()), 3)
        self.assertEqual(stub.api_requests()[0].headers["authorization"], "Bearer stub-token-3")

    def test_a_success_whose_body_is_not_json_is_an_error(self):
        stub = self.stub([reply(200, raw=b"<html>proxy login</html>")])
        with self.assertRaises(ResultsApiError) as caught:
            client_for(stub).list_session_results(TEST_ID)
        self.assertEqual(caught.exception.status, 200)
        self.assertIn("the body is not JSON", str(caught.exception))

    def test_a_redirect_is_not_followed_so_credentials_stay_put(self):
        stub = self.stub([reply(302, None, location="http://elsewhere.example/steal"), OK])
        with self.assertRaises(ResultsApiError) as caught:
            client_for(stub, "A").list_session_results(TEST_ID)
        self.assertEqual(caught.exception.status, 302)
        self.assertIn("redirects are not followed (Location: http://elsewhere.example/steal)", str(caught.exception))
        self.assertEqual(len(stub.api_requests()), 1)

    def test_a_success_that_is_not_a_page_is_an_error(self):
        stub = self.stub([reply(200, {"sessions": "nope"})])
        with self.assertRaises(ResultsApiError) as caught:
            client_for(stub).list_session_results(TEST_ID)
        self.assertIn("not a page of session results", str(caught.exception))


def _drop():
    return reply(0, drop=True)


if __name__ == "__main__":
    unittest.main()
