"""The client against a running Results API server.

Needs the server and a seeded API user, given in the environment (the repository's
test/client/python-client.test.ts starts the server, seeds it and runs this suite):

- RESULTS_API_LIVE_URL: the server's base URL (token endpoints and API on one origin)
- RESULTS_API_LIVE_CLIENT_ID, RESULTS_API_LIVE_CLIENT_SECRET: the API user's credential
- RESULTS_API_LIVE_SERVER_ID: the custom authorization server's id (form B)
- RESULTS_API_LIVE_WORKSPACE_ID, RESULTS_API_LIVE_TEST_ID: a workspace of the user and its test
- RESULTS_API_LIVE_SESSIONS: the test's sessions as JSON, in the order the API returns them
- RESULTS_API_LIVE_VIDEO_SESSION (optional): a session of the test that has a video
- RESULTS_API_LIVE_TRANSCRIPT_SESSION, RESULTS_API_LIVE_TRANSCRIPT (optional): a session of the
  test that has a transcript, and that transcript (every other session of the test has none)
- RESULTS_API_LIVE_DETAILS_TEST_ID, RESULTS_API_LIVE_DETAILS (optional): a test of the user whose
  sessions have details, and what the TypeScript SDK answered for it as JSON: ``pairs`` (its
  ``sessionsWithDetails``, ``[{session, details}]``) and ``qxScores``
- RESULTS_API_LIVE_CLIP, RESULTS_API_LIVE_REEL (optional): a clip of that video and a highlight reel of it
"""

import json
import os
import unittest
import uuid

import requests

from results_api_client import ResultsApiError, ResultsClient

VARIABLES = ["URL", "CLIENT_ID", "CLIENT_SECRET", "SERVER_ID", "WORKSPACE_ID", "TEST_ID", "SESSIONS"]
ENV = {name: os.environ.get(f"RESULTS_API_LIVE_{name}") for name in VARIABLES}


def setUpModule():
    missing = [f"RESULTS_API_LIVE_{name}" for name, value in ENV.items() if not value]
    if missing:
        raise unittest.SkipTest(f"no live server given: set {', '.join(missing)}")


class RecordingSession(requests.Session):
    """A requests session that remembers what it sent (method, path, headers)."""

    def __init__(self) -> None:
        super().__init__()
        self.sent = []

    def send(self, request, **kwargs):
        self.sent.append(request)
        return super().send(request, **kwargs)

    def token_requests(self):
        return [r for r in self.sent if r.path_url.endswith("/v1/token")]

    def api_requests(self):
        return [r for r in self.sent if not r.path_url.endswith("/v1/token")]


class LiveTest(unittest.TestCase):
    def client(self, form: str, **options) -> ResultsClient:
        if form == "B":
            options["authorization_server_id"] = ENV["SERVER_ID"]
        options.setdefault("client_secret", ENV["CLIENT_SECRET"])
        client = ResultsClient(ENV["URL"], ENV["URL"], ENV["CLIENT_ID"], form=form, **options)
        self.addCleanup(client.close)
        return client

    @property
    def sessions(self):
        return json.loads(ENV["SESSIONS"])

    def test_every_session_in_order_in_both_forms(self):
        for form in ("A", "B"):
            with self.subTest(form=form):
                session = RecordingSession()
                self.addCleanup(session.close)
                listed = list(self.client(form, session=session).session_results(ENV["TEST_ID"], page_size=7))
                self.assertEqual(listed, self.sessions)
                self.assertEqual(len(session.api_requests()), -(-len(self.sessions) // 7))
                self.assertEqual(len(session.token_requests()), 1)

    def test_a_test_past_the_offset_bound_is_read_by_cursor_in_the_same_order_and_shape(self):
        completed = [s for s in self.sessions if s["status"] == "COMPLETE"]
        self.assertGreater(len(completed), 5)
        for form in ("A", "B"):
            with self.subTest(form=form):
                session = RecordingSession()
                self.addCleanup(session.close)
                pages = []
                listed = list(self.client(form, session=session).session_results(ENV["TEST_ID"], page_size=5, offset_bound=5, on_page=pages.append))
                self.assertEqual(listed, completed)
                self.assertEqual({p["via"] for p in pages}, {"cursor"})
                cursor_paths = {r.path_url.split("?")[0] for r in session.api_requests()[1:]}
                self.assertEqual(cursor_paths, {f"/usertesting/api/v1/studies/{ENV['TEST_ID']}/completed-sessions"})

    def test_one_page_of_completed_sessions_then_the_next_after_its_cursor(self):
        client = self.client("B")
        first = client.completed_sessions(ENV["TEST_ID"])
        completed = [s["sessionId"] for s in self.sessions if s["status"] == "COMPLETE"]
        self.assertEqual(first["completedSessionCount"], len(completed))
        self.assertEqual([s["sessionUuid"] for s in first["sessions"]], completed[: len(first["sessions"])])
        rest = client.completed_sessions(ENV["TEST_ID"], after=first["sessions"][-1]["cursor"])
        self.assertEqual([s["sessionUuid"] for s in rest["sessions"]], completed[len(first["sessions"]) : len(first["sessions"]) + len(rest["sessions"])])

    def test_one_page_in_each_form(self):
        a = self.client("A").list_session_results(ENV["TEST_ID"], limit=5, offset=3)
        self.assertEqual(a["sessions"], self.sessions[3:8])
        self.assertEqual(a["meta"]["pagination"], {"limit": 5, "offset": 3, "totalCount": len(self.sessions)})
        b = self.client("B").list_session_results(ENV["TEST_ID"], rows_per_page=5, page_number=2)
        self.assertEqual(b["sessions"], self.sessions[5:10])
        self.assertEqual(b["meta"]["pagination"]["pageNumber"], 2)

    def test_the_scope_of_each_form(self):
        self.assertEqual(self.client("A").get_access_token_info().scope, "public_api.read")
        self.assertEqual(self.client("B").get_access_token_info().scope, "studies:read")

    def test_workspaces_and_their_studies(self):
        client = self.client("B")
        self.assertIn(ENV["WORKSPACE_ID"], [w["uuid"] for w in client.workspaces()])
        studies = client.studies(ENV["WORKSPACE_ID"])
        self.assertEqual([(s["uuid"], s["type"]) for s in studies], [(ENV["TEST_ID"], "STUDYV2")])

    def test_to_dataframe(self):
        try:
            import pandas
        except ImportError:
            self.skipTest("pandas is not installed (Debian: python3-pandas)")
        frame = self.client("B").to_dataframe(ENV["TEST_ID"], page_size=7)
        self.assertEqual(list(frame["sessionId"]), [s["sessionId"] for s in self.sessions])
        self.assertEqual(frame["startTime"][0], pandas.Timestamp(self.sessions[0]["startTime"]))
        self.assertEqual(str(frame["finishTime"].dt.tz), "UTC")

    def test_a_revoked_token_is_replaced_once(self):
        for form, server in (("A", "default"), ("B", ENV["SERVER_ID"])):
            with self.subTest(form=form):
                session = RecordingSession()
                self.addCleanup(session.close)
                client = self.client(form, session=session)
                revoked = client.get_access_token()
                answer = requests.post(
                    f"{ENV['URL']}/oauth2/{server}/v1/revoke",
                    data={"token": revoked, "client_id": ENV["CLIENT_ID"], "client_secret": ENV["CLIENT_SECRET"]},
                    timeout=10,
                )
                self.assertEqual(answer.status_code, 200)

                page = client.list_session_results(ENV["TEST_ID"], limit=2) if form == "A" else client.list_session_results(ENV["TEST_ID"], rows_per_page=2)
                self.assertEqual(page["sessions"], self.sessions[:2])
                fresh = client.get_access_token()
                self.assertNotEqual(fresh, revoked)
                self.assertEqual(len(session.token_requests()), 2)
                header = "token" if form == "A" else "authorization"
                used = [r.headers[header].removeprefix("Bearer ") for r in session.api_requests()]
                self.assertEqual(used, [revoked, fresh])

    def test_wrong_credentials_are_an_oauth_error(self):
        with self.assertRaises(ResultsApiError) as caught:
            self.client("B", client_secret="not-the-secret").get_access_token()
        err = caught.exception
        self.assertEqual((err.status, err.method, err.oauth.error), (401, "POST", "invalid_client"))
        self.assertNotIn("not-the-secret", str(err))

    @unittest.skipUnless(os.environ.get("RESULTS_API_LIVE_VIDEO_SESSION"), "no session with a video given")
    def test_a_video_download_link_in_both_forms(self):
        session_id = os.environ["RESULTS_API_LIVE_VIDEO_SESSION"]
        for form in ("A", "B"):
            link = self.client(form).video_download_url(session_id)
            self.assertEqual(link["sessionId"], session_id)
            self.assertIn("/media/videos/", link["videoUrl"])
            self.assertIn(f"name={session_id}.mp4", link["videoUrl"])
            self.assertRegex(link["expiresAt"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")

    @unittest.skipUnless(os.environ.get("RESULTS_API_LIVE_REEL"), "no clip and reel given")
    def test_clips_and_highlight_reels_in_both_forms(self):
        session_id, test_id = os.environ["RESULTS_API_LIVE_VIDEO_SESSION"], os.environ["RESULTS_API_LIVE_TEST_ID"]
        clip_id, reel_id = os.environ["RESULTS_API_LIVE_CLIP"], os.environ["RESULTS_API_LIVE_REEL"]
        for form in ("A", "B"):
            client = self.client(form)
            self.assertEqual([c["uuid"] for c in client.clips(session_id)["clips"]], [clip_id])
            self.assertIn(client.clip(session_id, clip_id)["status"], ("GENERATING", "GENERATED"))
            reels = client.highlight_reels(test_id)
            self.assertEqual(([r["uuid"] for r in reels["reels"]], reels["studyWithClips"]), ([reel_id], True))
            self.assertEqual(client.highlight_reel(test_id, reel_id)["reelId"], reel_id)
        with self.assertRaises(ResultsApiError) as caught:
            self.client("B").clip(session_id, str(uuid.uuid4()))
        self.assertEqual((caught.exception.status, caught.exception.problem.detail), (404, "Clip not found"))

    def test_a_session_without_a_video_is_not_found(self):
        with self.assertRaises(ResultsApiError) as caught:
            self.client("B").video_download_url(str(uuid.uuid4()))
        self.assertEqual(caught.exception.status, 404)
        self.assertEqual(caught.exception.problem.detail, "Video not found")

    @unittest.skipUnless(os.environ.get("RESULTS_API_LIVE_TRANSCRIPT_SESSION"), "no session with a transcript given")
    def test_a_transcript_in_both_forms(self):
        session_id = os.environ["RESULTS_API_LIVE_TRANSCRIPT_SESSION"]
        for form, path in (("A", "/v2/sessionResults"), ("B", "/api/v2/sessionResults")):
            with self.subTest(form=form):
                session = RecordingSession()
                self.addCleanup(session.close)
                self.assertEqual(self.client(form, session=session).transcript(session_id), os.environ["RESULTS_API_LIVE_TRANSCRIPT"])
                [api] = session.api_requests()
                self.assertEqual(api.path_url, f"{path}/{session_id}/transcript")
                self.assertEqual(api.headers["accept"], "text/vtt")

    @unittest.skipUnless(os.environ.get("RESULTS_API_LIVE_TRANSCRIPT_SESSION"), "no session with a transcript given")
    def test_search_finds_the_transcript(self):
        session_id = os.environ["RESULTS_API_LIVE_TRANSCRIPT_SESSION"]
        for form in ("A", "B"):
            with self.subTest(form=form):
                page = self.client(form).search("clique suivant", test_id=ENV["TEST_ID"], limit=5)
                self.assertEqual([hit["sessionId"] for hit in page["hits"]], [session_id])
                self.assertIn("**clique**", page["hits"][0]["snippet"])
                self.assertEqual(page["meta"], {"limit": 5, "offset": 0, "hasMore": False})
        self.assertEqual(self.client("B").search("nowhere to be found")["hits"], [])

    @unittest.skipUnless(os.environ.get("RESULTS_API_LIVE_TRANSCRIPT_SESSION"), "no session with a transcript given")
    def test_a_session_without_a_transcript_and_an_unknown_one_are_not_found(self):
        transcribed = os.environ["RESULTS_API_LIVE_TRANSCRIPT_SESSION"]
        silent = next(s["sessionId"] for s in self.sessions if s["sessionId"] != transcribed)
        for form in ("A", "B"):
            for session_id in (silent, str(uuid.uuid4())):
                with self.subTest(form=form, session_id=session_id):
                    with self.assertRaises(ResultsApiError) as caught:
                        self.client(form).transcript(session_id)
                    self.assertEqual(caught.exception.status, 404)
                    self.assertEqual(caught.exception.problem.detail, "Transcript not found")

    @unittest.skipUnless(os.environ.get("RESULTS_API_LIVE_DETAILS_TEST_ID"), "no test with session details given")
    def test_sessions_with_details_as_the_typescript_sdk_in_both_forms(self):
        expected = json.loads(os.environ["RESULTS_API_LIVE_DETAILS"])["pairs"]
        self.assertGreater(len(expected), 4)
        for form in ("A", "B"):
            with self.subTest(form=form):
                session = RecordingSession()
                self.addCleanup(session.close)
                client = self.client(form, session=session)
                pairs = list(client.sessions_with_details(os.environ["RESULTS_API_LIVE_DETAILS_TEST_ID"], concurrency=3, page_size=4))
                self.assertEqual([{"session": p.session, "details": p.details} for p in pairs], expected)
                details_paths = [r.path_url for r in session.api_requests() if r.path_url.startswith("/api/v3/")]
                self.assertEqual(sorted(details_paths), sorted(f"/api/v3/sessionResults/{p['session']['sessionId']}" for p in expected))

    @unittest.skipUnless(os.environ.get("RESULTS_API_LIVE_DETAILS_TEST_ID"), "no test with session details given")
    def test_one_session_s_details_and_the_test_s_qxscores_as_the_typescript_sdk(self):
        expected = json.loads(os.environ["RESULTS_API_LIVE_DETAILS"])
        first = expected["pairs"][0]
        for form in ("A", "B"):
            with self.subTest(form=form):
                client = self.client(form)
                self.assertEqual(client.session_details(first["session"]["sessionId"]), first["details"])
                self.assertEqual(client.qx_scores(os.environ["RESULTS_API_LIVE_DETAILS_TEST_ID"]), expected["qxScores"])

    @unittest.skipUnless(os.environ.get("RESULTS_API_LIVE_DETAILS_TEST_ID"), "no test with session details given")
    def test_details_of_an_unknown_session_and_scores_of_a_foreign_test_are_not_found(self):
        client = self.client("B")
        for call, argument in ((client.session_details, str(uuid.uuid4())), (client.qx_scores, str(uuid.uuid4()))):
            with self.subTest(call=call.__name__):
                with self.assertRaises(ResultsApiError) as caught:
                    call(argument)
                self.assertEqual(caught.exception.status, 404)

    def test_a_bad_test_id_is_a_problem_naming_it(self):
        with self.assertRaises(ResultsApiError) as caught:
            self.client("B").list_session_results("not-a-uuid")
        err = caught.exception
        self.assertEqual(err.status, 400)
        self.assertIn("testId", err.problem.detail)
        self.assertIsNotNone(err.request_id)

    def test_a_test_of_another_workspace_is_not_found(self):
        with self.assertRaises(ResultsApiError) as caught:
            self.client("A").list_session_results(str(uuid.uuid4()))
        self.assertEqual(caught.exception.status, 404)
        self.assertEqual(caught.exception.problem.type, "urn:results-api:problem:not-found")


if __name__ == "__main__":
    unittest.main()
