"""The token cache: reuse, refresh before expiry, one re-mint on 401, one token request for many threads."""

import threading
import unittest

from results_api_client import ResultsApiError

from stub import Stub, client_for, empty_page, problem, reply, token_reply

TEST_ID = "9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f"
OK = reply(200, empty_page(TEST_ID))
REFUSED = reply(401, problem(401, "Unauthorized", "The access token is invalid or expired."))


class Clock:
    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now


class TokenTest(unittest.TestCase):
    def stub(self, api, **kwargs) -> Stub:
        stub = Stub(api, **kwargs)
        self.addCleanup(stub.close)
        return stub

    def bearer_tokens(self, stub: Stub):
        return [s.headers["authorization"].removeprefix("Bearer ") for s in stub.api_requests()]

    def test_one_token_serves_many_calls(self):
        stub = self.stub([OK])
        client = client_for(stub)
        token = client.get_access_token()
        for _ in range(3):
            client.list_session_results(TEST_ID)
        self.assertEqual(len(stub.token_requests()), 1)
        self.assertEqual(self.bearer_tokens(stub), [token] * 3)

    def test_the_token_is_renewed_a_minute_before_it_expires(self):
        clock = Clock()
        stub = self.stub([OK])
        client = client_for(stub, now=clock)
        info = client.get_access_token_info()
        self.assertEqual(info.expires_at, clock.now + 3600)
        clock.now += 3600 - 61
        client.list_session_results(TEST_ID)
        self.assertEqual(len(stub.token_requests()), 1)
        clock.now += 2  # 59 s before expiry
        client.list_session_results(TEST_ID)
        self.assertEqual(len(stub.token_requests()), 2)
        self.assertEqual(self.bearer_tokens(stub), ["stub-token-1", "stub-token-2"])

    def test_a_short_lived_token_is_renewed_halfway(self):
        clock = Clock()
        stub = self.stub([OK], token=lambda n, _s: token_reply(n, expires_in=100))
        client = client_for(stub, now=clock)
        client.get_access_token()
        clock.now += 49
        client.get_access_token()
        self.assertEqual(len(stub.token_requests()), 1)
        clock.now += 2
        self.assertEqual(client.get_access_token(), "stub-token-2")

    def test_a_refused_token_is_dropped_and_re_minted_once(self):
        stub = self.stub([REFUSED, OK])
        client = client_for(stub)
        page = client.list_session_results(TEST_ID)
        self.assertEqual(page["testId"], TEST_ID)
        self.assertEqual(self.bearer_tokens(stub), ["stub-token-1", "stub-token-2"])
        # The new token is cached for the calls that follow.
        client.list_session_results(TEST_ID)
        self.assertEqual(len(stub.token_requests()), 2)

    def test_a_second_401_is_raised(self):
        stub = self.stub([REFUSED])
        with self.assertRaises(ResultsApiError) as caught:
            client_for(stub).list_session_results(TEST_ID)
        self.assertEqual(caught.exception.status, 401)
        self.assertEqual(caught.exception.problem.detail, "The access token is invalid or expired.")
        self.assertEqual(len(stub.token_requests()), 2)
        self.assertEqual(len(stub.api_requests()), 2)

    def test_refused_credentials_raise_the_oauth_error_without_retrying(self):
        refused = reply(401, {"error": "invalid_client", "error_description": "Client authentication failed."})
        stub = self.stub([OK], token=lambda _n, _s: refused)
        with self.assertRaises(ResultsApiError) as caught:
            client_for(stub).list_session_results(TEST_ID)
        err = caught.exception
        self.assertEqual((err.status, err.method, err.oauth.error), (401, "POST", "invalid_client"))
        self.assertEqual(
            str(err),
            f"POST {stub.url}/oauth2/aus1a2b3c4d5e6f7g8h9/v1/token answered 401 invalid_client: Client authentication failed. "
            "Check the client id and secret (a revoked credential, or a secret rotated out and past its grace period, "
            "no longer works) and that auth_url names the server that issued them.",
        )
        self.assertNotIn("client-secret", str(err))
        self.assertEqual(len(stub.token_requests()), 1)
        self.assertEqual(stub.api_requests(), [])

    def test_a_token_response_without_a_token_is_an_error(self):
        stub = self.stub([OK], token=lambda _n, _s: reply(200, {"token_type": "Bearer", "expires_in": 3600}))
        with self.assertRaises(ResultsApiError) as caught:
            client_for(stub).get_access_token()
        self.assertIn("not a token response", str(caught.exception))

    def test_threads_asking_at_once_share_one_token_request(self):
        stub = self.stub([OK])
        client = client_for(stub)
        arrived, release = threading.Event(), threading.Event()
        answer = stub._handle

        def held_token_requests(handler):
            # Holds the first token request open until every thread has had its chance to ask too.
            if handler.path.endswith("/v1/token"):
                arrived.set()
                release.wait(10)
            answer(handler)

        stub._handle = held_token_requests
        tokens = []
        threads = [threading.Thread(target=lambda: tokens.append(client.get_access_token())) for _ in range(8)]
        for thread in threads:
            thread.start()
        self.assertTrue(arrived.wait(10))
        for thread in threads:
            thread.join(0.05)
        release.set()
        for thread in threads:
            thread.join(10)
        self.assertEqual(tokens, ["stub-token-1"] * 8)
        self.assertEqual(len(stub.token_requests()), 1)

    def test_the_token_and_secret_stay_out_of_reprs(self):
        stub = self.stub([OK])
        client = client_for(stub)
        info = client.get_access_token_info()
        self.assertNotIn("stub-token", repr(info))
        self.assertNotIn("client-secret", repr(client))


if __name__ == "__main__":
    unittest.main()
