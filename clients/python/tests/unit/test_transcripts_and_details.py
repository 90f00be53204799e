"""Transcripts, session details, QXscores and sessions with their details, on the wire."""

import threading
import unittest
import uuid

from results_api_client import ResultsApiError, SessionWithDetails

from stub import Stub, client_for, problem, reply

TEST_ID = "9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f"
SESSION_ID = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
# Non-ASCII on purpose: WebVTT is UTF-8 even when the content-type names no charset.
VTT = "WEBVTT\n\n00:00:00.000 --> 00:00:02.000\nJ'ai cliqué sur « Suivant ».\n"
NOT_FOUND = problem(404, "Not Found", "Transcript not found")
RATE_LIMITED = problem(429, "Too Many Requests", "Slow down.")


def vtt_reply(text: str = VTT, content_type: str = "text/vtt") -> object:
    return reply(200, raw=text.encode("utf-8"), content_type=content_type)


def details_of(session_id: str) -> dict:
    return {
        "sessionId": session_id,
        "audienceId": None,
        "testPlanId": str(uuid.UUID(int=7)),
        "sessionParticipant": {"participantId": "p-1", "demographicsInfo": []},
        "taskGroups": [],
        "tasks": [{"uuid": str(uuid.UUID(int=8)), "text": f"Rate {session_id}", "type": "RATING_SCALE",
                   "response": {"startTimeMs": 0, "endTimeMs": 900, "skipped": False, "answer": {"ratingScale": {"value": 4}}}}],
    }


def listed(count: int):
    return [
        {"sessionId": str(uuid.UUID(int=count - i)), "audienceId": None, "status": "COMPLETE",
         "startTime": f"2024-11-21T12:{59 - i:02d}:00.000Z", "finishTime": None}
        for i in range(count)
    ]


class Base(unittest.TestCase):
    def stub(self, api, **kwargs) -> Stub:
        stub = Stub(api, **kwargs)
        self.addCleanup(stub.close)
        return stub


class TranscriptTest(Base):
    def test_both_forms_get_the_transcript_path_accepting_text_vtt_and_return_the_utf8_text(self):
        for form, path in (("A", f"/v2/sessionResults/{SESSION_ID}/transcript"), ("B", f"/api/v2/sessionResults/{SESSION_ID}/transcript")):
            with self.subTest(form=form):
                # text/plain without a charset would be read as Latin-1 by requests' .text
                stub = self.stub([vtt_reply(content_type="text/plain")])
                self.assertEqual(client_for(stub, form).transcript(SESSION_ID), VTT)
                [api] = stub.api_requests()
                self.assertEqual((api.method, api.path), ("GET", path))
                self.assertEqual(api.headers["accept"], "text/vtt")
                if form == "A":
                    self.assertEqual(api.headers["token"], "stub-token-1")
                else:
                    self.assertEqual(api.headers["authorization"], "Bearer stub-token-1")

    def test_a_byte_order_mark_before_the_header_is_kept(self):
        stub = self.stub([vtt_reply("\ufeff" + VTT)])
        self.assertEqual(client_for(stub).transcript(SESSION_ID), "\ufeff" + VTT)

    def test_a_session_without_a_transcript_is_a_404_results_api_error(self):
        stub = self.stub([reply(404, NOT_FOUND, x_request_id="req-404")])
        with self.assertRaises(ResultsApiError) as caught:
            client_for(stub).transcript(SESSION_ID)
        err = caught.exception
        self.assertEqual((err.status, err.problem.detail, err.request_id), (404, "Transcript not found", "req-404"))
        self.assertEqual(err.url, f"{stub.url}/api/v2/sessionResults/{SESSION_ID}/transcript")
        self.assertEqual(len(stub.api_requests()), 1)

    def test_a_body_that_is_not_webvtt_is_an_error_not_a_transcript(self):
        for body in ("<html>Sign in</html>", "WEBVTTX\n", "", "{}"):
            with self.subTest(body=body):
                stub = self.stub([vtt_reply(body)])
                with self.assertRaises(ResultsApiError) as caught:
                    client_for(stub).transcript(SESSION_ID)
                self.assertEqual(caught.exception.status, 200)
                self.assertIn("not a WebVTT transcript", str(caught.exception))

    def test_429_waits_out_retry_after_and_a_refused_token_is_re_minted_once(self):
        stub = self.stub([reply(429, RATE_LIMITED, retry_after="3"), reply(401, problem(401, "Unauthorized", "Expired.")), vtt_reply()])
        client = client_for(stub)
        self.assertEqual(client.transcript(SESSION_ID), VTT)
        self.assertEqual(client._transport._sleep.waits, [3.0])
        self.assertEqual([s.headers["authorization"] for s in stub.api_requests()],
                         ["Bearer stub-token-1", "Bearer stub-token-1", "Bearer stub-token-2"])


class SessionDetailsTest(Base):
    def test_both_forms_get_the_v3_session_results_path(self):
        for form in ("A", "B"):
            with self.subTest(form=form):
                stub = self.stub([reply(200, details_of(SESSION_ID))])
                self.assertEqual(client_for(stub, form).session_details(SESSION_ID), details_of(SESSION_ID))
                [api] = stub.api_requests()
                self.assertEqual((api.method, api.path), ("GET", f"/api/v3/sessionResults/{SESSION_ID}"))
                self.assertEqual(api.headers["accept"], "application/json")

    def test_a_body_without_tasks_and_task_groups_is_an_error(self):
        for body in ({"sessionId": SESSION_ID, "tasks": []}, {"taskGroups": [], "tasks": None}, []):
            with self.subTest(body=body):
                stub = self.stub([reply(200, body)])
                with self.assertRaises(ResultsApiError) as caught:
                    client_for(stub).session_details(SESSION_ID)
                self.assertIn("not session details", str(caught.exception))

    def test_an_unknown_session_is_a_404(self):
        stub = self.stub([reply(404, problem(404, "Not Found", "Session not found"))])
        with self.assertRaises(ResultsApiError) as caught:
            client_for(stub).session_details(SESSION_ID)
        self.assertEqual((caught.exception.status, caught.exception.problem.detail), (404, "Session not found"))


class QxScoresTest(Base):
    SCORES = {"testId": TEST_ID, "qxScores": [], "meta": {"totalQxTasks": 0, "completes": 3}}

    def test_gets_the_test_results_path(self):
        stub = self.stub([reply(200, self.SCORES)])
        self.assertEqual(client_for(stub, "A").qx_scores(TEST_ID), self.SCORES)
        [api] = stub.api_requests()
        self.assertEqual((api.method, api.path), ("GET", f"/api/v2/testResults/{TEST_ID}/qxScores"))

    def test_a_body_that_is_not_qxscores_is_an_error(self):
        for body in ({"testId": TEST_ID, "qxScores": []}, {"qxScores": {}, "meta": {"completes": 1}}, {"qxScores": [], "meta": {"completes": "3"}}):
            with self.subTest(body=body):
                stub = self.stub([reply(200, body)])
                with self.assertRaises(ResultsApiError) as caught:
                    client_for(stub).qx_scores(TEST_ID)
                self.assertIn("not QXscores", str(caught.exception))


def listing_and_details(rows, details_reply):
    """Serves ``rows`` as the v2 listing (either paging form) and each session's details by ``details_reply(session_id)``."""

    def answer(sent):
        if sent.path.startswith("/api/v3/sessionResults/"):
            return details_reply(sent.path.rsplit("/", 1)[1])
        q = sent.query
        limit = int(q.get("limit") or q.get("rowsPerPage") or 25)
        offset = int(q["offset"]) if "offset" in q else (int(q.get("pageNumber", 1)) - 1) * limit
        return reply(200, {"testId": q["testId"], "sessions": rows[offset : offset + limit],
                           "meta": {"pagination": {"limit": limit, "offset": offset, "totalCount": len(rows)}}})

    return answer


class SessionsWithDetailsTest(Base):
    def test_pairs_in_listing_order_with_at_most_concurrency_requests_in_flight(self):
        rows = listed(10)
        # Later sessions answer sooner, so answers arrive out of listing order.
        order = {s["sessionId"]: i for i, s in enumerate(rows)}
        stub = self.stub(listing_and_details(rows, lambda sid: reply(200, details_of(sid), delay=0.03 * (10 - order[sid]))))
        pages = []
        pairs = list(client_for(stub).sessions_with_details(TEST_ID, concurrency=3, page_size=4, on_page=pages.append))
        self.assertEqual([p.session for p in pairs], rows)
        self.assertEqual([p.details for p in pairs], [details_of(s["sessionId"]) for s in rows])
        self.assertIsInstance(pairs[0], SessionWithDetails)
        session, details = pairs[0]
        self.assertEqual(details["sessionId"], session["sessionId"])
        self.assertEqual(stub.max_in_flight, 3)
        self.assertEqual([p["received"] for p in pages], [4, 8, 10])

    def test_the_default_concurrency_is_four(self):
        rows = listed(8)
        stub = self.stub(listing_and_details(rows, lambda sid: reply(200, details_of(sid), delay=0.1)))
        self.assertEqual(len(list(client_for(stub).sessions_with_details(TEST_ID))), 8)
        self.assertEqual(stub.max_in_flight, 4)

    def test_a_429_on_a_details_request_waits_out_its_retry_after(self):
        rows = listed(3)
        limited = {rows[1]["sessionId"]: 1}
        lock = threading.Lock()

        def details_reply(sid):
            with lock:
                if limited.get(sid):
                    limited[sid] -= 1
                    return reply(429, RATE_LIMITED, retry_after="5")
            return reply(200, details_of(sid))

        stub = self.stub(listing_and_details(rows, details_reply))
        client = client_for(stub)
        pairs = list(client.sessions_with_details(TEST_ID, concurrency=2))
        self.assertEqual([p.details["sessionId"] for p in pairs], [s["sessionId"] for s in rows])
        self.assertEqual(client._transport._sleep.waits, [5.0])
        details_requests = [s.path for s in stub.api_requests() if s.path.startswith("/api/v3/")]
        self.assertEqual(details_requests.count(f"/api/v3/sessionResults/{rows[1]['sessionId']}"), 2)

    def test_a_failed_details_request_is_raised_when_its_session_comes(self):
        rows = listed(4)
        gone = rows[2]["sessionId"]
        stub = self.stub(listing_and_details(
            rows, lambda sid: reply(404, problem(404, "Not Found", "Session not found")) if sid == gone else reply(200, details_of(sid))))
        received = []
        with self.assertRaises(ResultsApiError) as caught:
            for session, _details in client_for(stub).sessions_with_details(TEST_ID, concurrency=2):
                received.append(session["sessionId"])
        self.assertEqual(caught.exception.status, 404)
        self.assertEqual(received, [rows[0]["sessionId"], rows[1]["sessionId"]])

    def test_a_concurrency_out_of_range_is_refused_before_any_request(self):
        stub = self.stub(listing_and_details(listed(1), lambda sid: reply(200, details_of(sid))))
        client = client_for(stub)
        for concurrency in (0, 17, 2.5, True, "4"):
            with self.subTest(concurrency=concurrency):
                with self.assertRaisesRegex(ValueError, "concurrency must be an integer from 1 to 16"):
                    client.sessions_with_details(TEST_ID, concurrency=concurrency)
        self.assertEqual(stub.sent, [])


if __name__ == "__main__":
    unittest.main()
