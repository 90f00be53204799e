/**
 * PostgreSQL's search: the GIN-indexed tsvector against a tsquery built from plain words only
 * (see src/search/search-query.ts); visibility is the list of test ids in @tests and of kinds in
 * @kinds (JSON arrays), applied in the query. As on SQLite, the work grows with the page, not
 * with the matches: the newest @window matching entries, ts_rank of those only (the newest
 * @first before the others, see SEARCH_RANK_FIRST), the page of them, and ts_headline for the
 * page's rows only.
 *
 * GIN returns its matches unordered, so the newest were found by fetching every match and
 * sorting (`page`, in 36,000 of a million cues: 200-380 ms). Now they are looked for in the
 * newest 32 × @window entries first (near), then in a wider range (wide), then in all: each
 * range is the GIN bitmap ANDed with a range of the primary key, so only the matches in it are
 * fetched, and the first range holding @window matches (or every entry) is the answer, the
 * same rows as a search of all. A common word stops at near. Wide is sized by what near found:
 * 1.5 times the entries that should hold @window matches at near's rate, at most 256 × @window
 * (a word in ~1 % of the entries fetches ~1,500 rows, not all 10,000 of its matches); it is
 * skipped when near held under 1/8 of the window (a rare word: few matches to fetch from all,
 * and a bitmap of 256,000 keys costs ~10 ms). The query is planned without its words (q is
 * materialized), so the generic plan a prepared statement settles on is the plan every query
 * gets anyway; `id + 0` keeps each range a bitmap scan instead of a walk of the primary key
 * backwards past every row that does not match, and the visibility filters are arrays, not
 * joins that a plan could rescan the bitmap for.
 *
 * @test: within one test, the tsquery of its lexeme in the document (migration 19), so GIN
 * intersects the words with the test; null otherwise.
 */
const candidates = (where: string) => `
    SELECT e.id, e.document
      FROM search_entries e, q
     WHERE ${where} e.document @@ q.filter
       AND e.test_id = ANY (ARRAY(SELECT jsonb_array_elements_text(@tests::jsonb)))
       AND e.kind = ANY (ARRAY(SELECT jsonb_array_elements_text(@kinds::jsonb)))
     ORDER BY e.id + 0 DESC
     LIMIT @window`;

export const POSTGRES_SEARCH = `
  WITH q AS MATERIALIZED (
    SELECT to_tsquery('english', @match) AS query,
           CASE WHEN CAST(@test AS text) IS NULL THEN to_tsquery('english', @match)
                ELSE to_tsquery('english', @match) && CAST(@test AS text)::tsquery END AS filter),
  newest AS MATERIALIZED (SELECT max(id) AS top FROM search_entries),
  near AS MATERIALIZED (${candidates('e.id > (SELECT top FROM newest) - 32 * @window AND')}),
  near_found AS MATERIALIZED (
    SELECT (SELECT count(*) FROM near) = @window OR top <= 32 * @window AS done,
           (SELECT count(*) FROM near) * 8 >= @window AS widen,
           LEAST(256 * @window, 48::bigint * @window * @window / GREATEST((SELECT count(*) FROM near), 1)) AS wide_span
      FROM newest),
  wide AS MATERIALIZED (${candidates('NOT (SELECT done FROM near_found) AND (SELECT widen FROM near_found) AND e.id > (SELECT top FROM newest) - (SELECT wide_span FROM near_found) AND')}),
  wide_found AS MATERIALIZED (
    SELECT NOT n.done AND n.widen AND ((SELECT count(*) FROM wide) = @window OR (SELECT top FROM newest) <= n.wide_span) AS done
      FROM near_found n),
  candidates AS (
    SELECT id, document FROM near WHERE (SELECT done FROM near_found)
    UNION ALL
    SELECT id, document FROM wide WHERE (SELECT done FROM wide_found)
    UNION ALL
    (${candidates('NOT (SELECT done FROM near_found) AND NOT (SELECT done FROM wide_found) AND')})),
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

/** The test's lexeme as a tsquery (migration 19's '#' and test id), quoted: a quote or backslash in it is escaped by a backslash. */
export const postgresTestQuery = (testId: string): string => `'#${testId.replace(/['\\]/g, '\\$&')}'`;
