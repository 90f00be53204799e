"""Both request forms on the wire, and the page iterator over them."""

import unittest
import uuid

from results_api_client import MAX_OFFSET, ResultsApiError, ResultsClient

from stub import SERVER_ID, Stub, client_for, reply

TEST_ID = "9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f"


def sessions(count: int):
    return [
        {"sessionId": str(uuid.UUID(int=count - i)), "audienceId": None, "status": "COMPLETE",
         "startTime": f"2024-11-21T12:{59 - i % 60:02d}:00.000Z", "finishTime": None}
        for i in range(count)
    ]


def paging_server(rows, shift_after_first_page=0):
    """Serves ``rows`` in both paging forms, like the real server; optionally ``shift_after_first_page``
    new sessions arrive once the first page was served (pages then shift)."""
    state = {"rows": list(rows), "served": 0}

    def answer(sent):
        q = sent.query
        if sent.path.endswith("/completed-sessions"):
            # Legacy v1: 50 per page after the given cursor (a session's id here).
            rows_now = state["rows"]
            start = next(i + 1 for i, s in enumerate(rows_now) if s["sessionId"] == q["after"]) if "after" in q else 0
            page = [{"cursor": s["sessionId"], "sessionUuid": s["sessionId"], "completedDateTime": s["finishTime"], "state": "completed",
                     "startTime": s["startTime"], "audienceId": s["audienceId"]} for s in rows_now[start : start + 50]]
            return reply(200, {"completedSessionCount": len(rows_now), "sessions": page})
        if "limit" in q:
            limit, offset = int(q["limit"]), int(q.get("offset", 0))
        else:
            limit = int(q.get("rowsPerPage", 25))
            offset = (int(q.get("pageNumber", 1)) - 1) * limit
        page = state["rows"][offset : offset + limit]
        state["served"] += 1
        if state["served"] == 1 and shift_after_first_page:
            state["rows"] = sessions(len(rows) + shift_after_first_page)[:shift_after_first_page] + state["rows"]
        return reply(200, {"testId": q["testId"], "sessions": page,
                           "meta": {"pagination": {"limit": limit, "offset": offset, "totalCount": len(state["rows"])}}})

    return answer


class FormsTest(unittest.TestCase):
    def stub(self, api, **kwargs) -> Stub:
        stub = Stub(api, **kwargs)
        self.addCleanup(stub.close)
        return stub

    def test_form_a_default_server_token_header_limit_offset(self):
        stub = self.stub(paging_server(sessions(30)))
        page = client_for(stub, "A").list_session_results(TEST_ID, limit=10, offset=5)
        self.assertEqual(page["sessions"], sessions(30)[5:15])
        token, api = stub.sent
        self.assertEqual((token.method, token.path), ("POST", "/oauth2/default/v1/token"))
        self.assertEqual(token.headers["content-type"], "application/x-www-form-urlencoded")
        self.assertEqual(token.form, {"grant_type": "client_credentials", "scope": "public_api.read",
                                      "client_id": "client-id", "client_secret": "client-secret"})
        self.assertEqual((api.method, api.path), ("GET", "/v2/sessionResults"))
        self.assertEqual(api.query, {"testId": TEST_ID, "limit": "10", "offset": "5"})
        self.assertEqual(api.headers["token"], "stub-token-1")
        self.assertNotIn("authorization", api.headers)

    def test_form_b_custom_server_bearer_rows_per_page_page_number(self):
        stub = self.stub(paging_server(sessions(30)))
        page = client_for(stub, "B").list_session_results(TEST_ID, rows_per_page=10, page_number=3)
        self.assertEqual(page["sessions"], sessions(30)[20:30])
        token, api = stub.sent
        self.assertEqual(token.path, f"/oauth2/{SERVER_ID}/v1/token")
        self.assertEqual(token.form["scope"], "studies:read")
        self.assertEqual(api.path, "/api/v2/sessionResults")
        self.assertEqual(api.query, {"testId": TEST_ID, "rowsPerPage": "10", "pageNumber": "3"})
        self.assertEqual(api.headers["authorization"], "Bearer stub-token-1")
        self.assertNotIn("token", api.headers)

    def test_form_b_is_the_default_with_an_authorization_server_id(self):
        self.assertEqual(ResultsClient("http://a", "http://b", "id", "secret", authorization_server_id=SERVER_ID).form, "B")
        self.assertEqual(ResultsClient("http://a", "http://b", "id", "secret").form, "A")

    def test_workspaces_and_every_page_of_studies(self):
        workspace = {"id": "w1", "name": "Lab", "uuid": "w1"}
        first = {"uuid": TEST_ID, "title": "Checkout", "type": "STUDYV2", "productType": "SURVEY", "cursor": "c1"}
        second = {"uuid": "t2", "title": "Onboarding", "type": "STUDYV2", "productType": "SURVEY", "cursor": "c2"}
        pages = {None: [first], "c1": [second], "c2": []}

        def answer(sent):
            if sent.path == "/usertesting/api/v1/workspaces":
                return reply(200, [workspace])
            return reply(200, pages[sent.query.get("after")])

        stub = self.stub(answer)
        client = client_for(stub)
        self.assertEqual(client.workspaces(), [workspace])
        self.assertEqual(client.studies("w 1/x"), [first, second])
        studies_asked = stub.api_requests()[1:]
        self.assertEqual({r.path for r in studies_asked}, {"/usertesting/api/v1/workspaces/w%201%2Fx"})
        self.assertEqual([r.query.get("after") for r in studies_asked], [None, "c1", "c2"])


class IteratorTest(unittest.TestCase):
    def stub(self, api) -> Stub:
        stub = Stub(api)
        self.addCleanup(stub.close)
        return stub

    def test_every_session_in_order_page_by_page_in_both_forms(self):
        rows = sessions(23)
        for form, first, second in [("A", {"limit": "10", "offset": "0"}, {"limit": "10", "offset": "10"}),
                                    ("B", {"rowsPerPage": "10", "pageNumber": "1"}, {"rowsPerPage": "10", "pageNumber": "2"})]:
            with self.subTest(form=form):
                stub = self.stub(paging_server(rows))
                progress = []
                listed = list(client_for(stub, form).session_results(TEST_ID, page_size=10, on_page=lambda p: progress.append((p["totalCount"], p["received"]))))
                self.assertEqual(listed, rows)
                queries = [s.query for s in stub.api_requests()]
                self.assertEqual(len(queries), 3)
                self.assertEqual(queries[0], {"testId": TEST_ID, **first})
                self.assertEqual(queries[1], {"testId": TEST_ID, **second})
                self.assertEqual(progress, [(23, 10), (23, 20), (23, 23)])

    def test_stops_when_total_count_is_reached_without_asking_for_an_empty_page(self):
        stub = self.stub(paging_server(sessions(20)))
        self.assertEqual(len(list(client_for(stub).session_results(TEST_ID, page_size=10))), 20)
        self.assertEqual(len(stub.api_requests()), 2)

    def test_fetches_lazily_as_the_loop_consumes(self):
        stub = self.stub(paging_server(sessions(30)))
        iterator = client_for(stub).session_results(TEST_ID, page_size=10)
        self.assertEqual(stub.api_requests(), [])
        next(iterator)
        self.assertEqual(len(stub.api_requests()), 1)

    def test_a_session_seen_on_an_earlier_page_is_not_yielded_twice(self):
        rows = sessions(20)
        stub = self.stub(paging_server(rows, shift_after_first_page=2))
        listed = [s["sessionId"] for s in client_for(stub).session_results(TEST_ID, page_size=10)]
        self.assertEqual(len(listed), len(set(listed)))
        self.assertEqual(listed, [s["sessionId"] for s in rows])

    def test_a_test_deeper_than_the_offset_listing_is_read_by_cursor_from_the_start(self):
        rows = sessions(MAX_OFFSET + 520)
        stub = self.stub(paging_server(rows))
        progress = []
        listed = list(client_for(stub, "A").session_results(TEST_ID, on_page=progress.append))
        self.assertEqual(listed, rows)
        asked = stub.api_requests()
        self.assertEqual(asked[0].query, {"testId": TEST_ID, "limit": "500", "offset": "0"})
        cursor_pages = asked[1:]
        self.assertEqual({r.path for r in cursor_pages}, {f"/usertesting/api/v1/studies/{TEST_ID}/completed-sessions"})
        self.assertEqual(cursor_pages[0].query, {})
        self.assertEqual(cursor_pages[1].query, {"after": rows[49]["sessionId"]})
        self.assertEqual(len(cursor_pages), -(-len(rows) // 50) + 1)  # the last one is empty
        self.assertEqual({p["via"] for p in progress}, {"cursor"})
        self.assertEqual(progress[-1]["received"], len(rows))
        self.assertEqual(progress[-1]["totalCount"], len(rows))

    def test_a_test_growing_past_the_offset_bound_while_paging_finishes_by_cursor_without_repeats(self):
        rows = sessions(15)
        # The first page reports 25 sessions (within 15 + a page of 10); the second shows the shift.
        stub = self.stub(paging_server(rows, shift_after_first_page=10))
        progress = []
        listed = [s["sessionId"] for s in client_for(stub, "B").session_results(TEST_ID, page_size=10, offset_bound=15, on_page=progress.append)]
        self.assertEqual(len(listed), len(set(listed)))
        self.assertEqual(sorted(listed), sorted(s["sessionId"] for s in sessions(25)))
        self.assertEqual(listed[:10], [s["sessionId"] for s in rows[:10]])
        self.assertEqual([p["via"] for p in progress], ["offset", "offset", "cursor"])
        self.assertEqual([p["received"] for p in progress], [10, 10, 25])

    def test_one_page_of_completed_sessions_after_or_before_a_cursor(self):
        stub = self.stub([reply(200, {"completedSessionCount": 0, "sessions": []}), reply(200, {"sessions": []})])
        client = client_for(stub)
        self.assertEqual(client.completed_sessions("t 1", after="c/1", before="c2"), {"completedSessionCount": 0, "sessions": []})
        [sent] = stub.api_requests()
        self.assertEqual((sent.path, sent.query), ("/usertesting/api/v1/studies/t%201/completed-sessions", {"after": "c/1", "before": "c2"}))
        with self.assertRaisesRegex(ResultsApiError, "not a page of completed sessions"):
            client.completed_sessions(TEST_ID)

    def test_page_size_and_offset_bound_are_checked_before_anything_is_sent(self):
        stub = self.stub(paging_server(sessions(1)))
        for bad in (0, 501, 2.5, True):
            with self.subTest(page_size=bad), self.assertRaisesRegex(ValueError, "page_size must be an integer from 1 to 500"):
                client_for(stub).session_results(TEST_ID, page_size=bad)
        for bad in (-1, MAX_OFFSET + 1, 2.5, True):
            with self.subTest(offset_bound=bad), self.assertRaisesRegex(ValueError, "offset_bound must be an integer from 0 to 10000"):
                client_for(stub).session_results(TEST_ID, offset_bound=bad)
        self.assertEqual(stub.sent, [])


class OptionsTest(unittest.TestCase):
    def test_wrong_options_are_named(self):
        cases = [
            (("ftp://x", "http://b", "id", "s"), {}, "auth_url must be an http"),
            (("http://a", "not a url", "id", "s"), {}, "base_url must be an absolute"),
            (("http://a", "http://b", "", "s"), {}, "client_id is required"),
            (("http://a", "http://b", "id", ""), {}, "client_secret is required"),
            (("http://a", "http://b", "id", "s"), {"form": "C"}, 'form must be "A" or "B"'),
            (("http://a", "http://b", "id", "s"), {"form": "B"}, "form B needs authorization_server_id"),
            (("http://a", "http://b", "id", "s"), {"max_retries": -1}, "max_retries must be an integer"),
            (("http://a", "http://b", "id", "s"), {"timeout": 0}, "timeout must be > 0"),
        ]
        for args, kwargs, message in cases:
            with self.subTest(message=message), self.assertRaisesRegex(ValueError, message):
                ResultsClient(*args, **kwargs)

    def test_both_paging_forms_at_once_are_refused(self):
        client = ResultsClient("http://127.0.0.1:9", "http://127.0.0.1:9", "id", "s")
        with self.assertRaisesRegex(ValueError, "not both"):
            client.list_session_results(TEST_ID, limit=10, page_number=2)


if __name__ == "__main__":
    unittest.main()
