/**
 * PostgreSQL's search: the GIN-indexed tsvector against a tsquery built from plain words only
 * (see src/search/search-query.ts), ts_rank ordering, ts_headline for the snippet of the page's
 * rows only; visibility is the list of test ids in @tests and of kinds in @kinds (JSON
 * arrays), applied in the query.
 */
export const POSTGRES_SEARCH = `
  WITH q AS (SELECT to_tsquery('english', @match) AS query),
  hits AS (
    SELECT e.id, e.session_id, e.test_id, e.kind, e.task_id, e.start_ms, e.end_ms, e.speaker, e.text,
           ts_rank(e.document, q.query) AS score
      FROM search_entries e, q
     WHERE e.document @@ q.query AND e.test_id IN (SELECT jsonb_array_elements_text(@tests::jsonb))
       AND e.kind IN (SELECT jsonb_array_elements_text(@kinds::jsonb))
     ORDER BY score DESC, e.id
     LIMIT @limit OFFSET @offset)
  SELECT h.session_id, h.test_id, h.kind, h.task_id, h.start_ms, h.end_ms, h.speaker, h.score,
         ts_headline('english', h.text, q.query, 'StartSel=**, StopSel=**, MaxWords=30, MinWords=12, MaxFragments=1, FragmentDelimiter=…') AS snippet
    FROM hits h, q
   ORDER BY h.score DESC, h.id`;

/** Words as a tsquery where every word must occur; each is letters and digits only, so nothing is an operator. */
export const postgresMatch = (words: readonly string[]): string => words.join(' & ');
