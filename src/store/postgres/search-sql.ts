/**
 * PostgreSQL's search: the GIN-indexed tsvector against a tsquery built from plain words only
 * (see src/search/search-query.ts); visibility is the list of test ids in @tests and of kinds in
 * @kinds (JSON arrays), applied in the query. As on SQLite, the work grows with the page, not
 * with the matches: the newest @window matching entries, ts_rank of those only (the newest
 * @first before the others, see SEARCH_RANK_FIRST), the page of them, and ts_headline for the
 * page's rows only.
 *
 * GIN returns its matches unordered, so the newest are found by fetching every match and
 * sorting (`page`, in 36,000 of a million cues: 200-380 ms). So they are first looked for among
 * the newest NEWEST_SPAN × @window entries only (the GIN bitmap ANDed with a range of the
 * primary key: only the matches in that range are fetched); when fewer than @window match there,
 * among all entries (as before). Both give the same rows: the newest @window matches. A word in
 * over 1/NEWEST_SPAN of the entries takes the first way, a rarer one pays the range once more.
 * The query is planned without its words (q is materialized), so a cached generic plan is the
 * plan every query gets anyway, and `id + 0` keeps each way a bitmap scan instead of a walk of
 * the primary key backwards past every row that does not match.
 *
 * @test: within one test, the tsquery of its lexeme in the document (migration 19), so GIN
 * intersects the words with the test; null otherwise.
 */
const NEWEST_SPAN = 32;
const candidates = (range: string) => `
    SELECT e.id, e.document
      FROM search_entries e, q
     WHERE ${range} e.document @@ q.filter
       AND e.test_id = ANY (ARRAY(SELECT jsonb_array_elements_text(@tests::jsonb)))
       AND e.kind = ANY (ARRAY(SELECT jsonb_array_elements_text(@kinds::jsonb)))
     ORDER BY e.id + 0 DESC
     LIMIT @window`;

export const POSTGRES_SEARCH = `
  WITH q AS MATERIALIZED (
    SELECT to_tsquery('english', @match) AS query,
           CASE WHEN CAST(@test AS text) IS NULL THEN to_tsquery('english', @match)
                ELSE to_tsquery('english', @match) && CAST(@test AS text)::tsquery END AS filter),
  newest AS MATERIALIZED (${candidates(`e.id > (SELECT max(id) FROM search_entries) - ${NEWEST_SPAN} * @window AND`)}),
  candidates AS (
    SELECT id, document FROM newest WHERE (SELECT count(*) FROM newest) = @window
    UNION ALL
    (${candidates('(SELECT count(*) FROM newest) < @window AND')})),
  page AS (
    SELECT c.id, ts_rank(c.document, q.query) AS score, row_number() OVER (ORDER BY c.id DESC) > @first AS older
      FROM candidates c, q
     ORDER BY older, score DESC, c.id
     LIMIT @limit OFFSET @offset)
  SELECT e.session_id, e.test_id, e.kind, e.task_id, e.start_ms, e.end_ms, e.speaker, p.score,
         ts_headline('english', e.text, q.query, 'StartSel=**, StopSel=**, MaxWords=30, MinWords=12, MaxFragments=1, FragmentDelimiter=…') AS snippet
    FROM page p JOIN search_entries e ON e.id = p.id, q
   ORDER BY p.older, p.score DESC, p.id`;

/** Words as a tsquery where every word must occur; each is letters and digits only, so nothing is an operator. */
export const postgresMatch = (words: readonly string[]): string => words.join(' & ');

/** The test's lexeme as a tsquery (migration 19's '#' and test id, quoted: ids are UUIDs, hex digits and dashes). */
export const postgresTestQuery = (testId: string): string => `'#${testId}'`;
