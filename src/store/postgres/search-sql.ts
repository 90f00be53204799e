/**
 * PostgreSQL's search: the GIN-indexed tsvector against a tsquery built from plain words only
 * (see src/search/search-query.ts); visibility is the list of test ids in @tests and of kinds in
 * @kinds (JSON arrays), applied in the query. As on SQLite, the work grows with the page, not
 * with the matches: the newest @window matching entries (ordered by `id + 0`, so the plan stays a
 * bitmap scan of the GIN index instead of walking the primary key backwards past every row that
 * does not match), ts_rank of those only (the newest @first before the others, see
 * SEARCH_RANK_FIRST), the page of them, and ts_headline for the page's rows only.
 */
export const POSTGRES_SEARCH = `
  WITH q AS (SELECT to_tsquery('english', @match) AS query),
  candidates AS (
    SELECT e.id, e.document
      FROM search_entries e, q
     WHERE e.document @@ q.query AND e.test_id IN (SELECT jsonb_array_elements_text(@tests::jsonb))
       AND e.kind IN (SELECT jsonb_array_elements_text(@kinds::jsonb))
     ORDER BY e.id + 0 DESC
     LIMIT @window),
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
