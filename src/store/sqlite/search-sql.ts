/**
 * SQLite's search: FTS5 MATCH over search_index (its query built from plain words only, see
 * src/search/search-query.ts); visibility is the list of test ids in @tests and of kinds in
 * @kinds (JSON arrays), applied in the query. Three steps, so that the work grows with the page,
 * not with the matches: the newest @window matching entries (FTS5 walks its doclists in rowid
 * order and stops there), ranked by BM25, the newest @first of them before the others (see
 * SEARCH_RANK_FIRST); the page of them; and FTS5's snippet of the page's rows only (a snippet
 * tokenizes its text again: computed for every match, it cost more than the ranking). A search
 * within one test names its test token in the MATCH (migration 19), so FTS5 intersects the
 * words with the test instead of walking every test's matches; BM25 weighs that column 0.
 */
export const SQLITE_SEARCH = `
  WITH ranked AS MATERIALIZED (
    SELECT search_index.rowid AS id, bm25(search_index, 1.0, 0.0) AS score
      FROM search_index JOIN search_entries e ON e.id = search_index.rowid
     WHERE search_index MATCH @match AND e.test_id IN (SELECT value FROM json_each(@tests))
       AND e.kind IN (SELECT value FROM json_each(@kinds))
     ORDER BY search_index.rowid DESC
     LIMIT @window),
  tiered AS (SELECT id, score, row_number() OVER (ORDER BY id DESC) > @first AS older FROM ranked),
  page AS MATERIALIZED (SELECT id, score, older FROM tiered ORDER BY older, score, id LIMIT @limit OFFSET @offset)
  SELECT e.session_id, e.test_id, e.kind, e.task_id, e.start_ms, e.end_ms, e.speaker,
         snippet(search_index, 0, '**', '**', '…', 24) AS snippet, page.score
    FROM page CROSS JOIN search_index CROSS JOIN search_entries e
   WHERE search_index MATCH @match AND search_index.rowid = page.id AND e.id = page.id
   ORDER BY page.older, page.score, page.id`;

/** The test token of migration 19 (search_entries.test_token), for a test id. */
const testToken = (testId: string): string => `t${testId.replaceAll('-', '')}`;

/** An FTS5 string: whatever `text` holds, its tokens, never query syntax (a quote is doubled). */
const ftsString = (text: string): string => `"${text.replaceAll('"', '""')}"`;

/**
 * Words joined as FTS5 phrases of one token each, in the text column: every word must occur
 * (implicit AND); within one test, its token too (tokenized as the index tokenized it).
 */
export const sqliteMatch = (words: readonly string[], oneTest: string | undefined): string =>
  `text : (${words.map(ftsString).join(' ')})${oneTest === undefined ? '' : ` AND test_token : ${ftsString(testToken(oneTest))}`}`;
