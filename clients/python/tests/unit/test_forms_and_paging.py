"""Both request forms on the wire, and the page iterator over them."""

import unittest
import uuid

from results_api_client import MAX_OFFSET, ResultsClient, ResultsPagingLimitError

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

    def test_a_test_deeper_than_the_api_pages_raises_after_what_it_could_list(self):
        rows = sessions(MAX_OFFSET + 1000)
        stub = self.stub(paging_server(rows))
        listed = []
        with self.assertRaises(ResultsPagingLimitError) as caught:
            for session in client_for(stub).session_results(TEST_ID):
                listed.append(session)
        self.assertEqual(len(listed), MAX_OFFSET + 500)
        self.assertIn(f"the newest {MAX_OFFSET + 500} of the test's {MAX_OFFSET + 1000} sessions were listed", str(caught.exception))

    def test_page_size_is_checked_before_anything_is_sent(self):
        stub = self.stub(paging_server(sessions(1)))
        for bad in (0, 501, 2.5, True):
            with self.subTest(page_size=bad), self.assertRaisesRegex(ValueError, "page_size must be an integer from 1 to 500"):
                client_for(stub).session_results(TEST_ID, page_size=bad)
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
