/**
 * SQLite's search: FTS5 MATCH over search_index (its query built from plain words only, see
 * src/search/search-query.ts), BM25 ranking, FTS5's own snippet; visibility is the list of
 * test ids in @tests and of kinds in @kinds (JSON arrays), applied in the query.
 */
export const SQLITE_SEARCH = `
  SELECT e.session_id, e.test_id, e.kind, e.task_id, e.start_ms, e.end_ms, e.speaker,
         snippet(search_index, 0, '**', '**', '…', 24) AS snippet, bm25(search_index) AS score
    FROM search_index JOIN search_entries e ON e.id = search_index.rowid
   WHERE search_index MATCH @match AND e.test_id IN (SELECT value FROM json_each(@tests))
     AND e.kind IN (SELECT value FROM json_each(@kinds))
   ORDER BY score, e.id
   LIMIT @limit OFFSET @offset`;

/** Words joined as FTS5 phrases of one token each: every word must occur (implicit AND). */
export const sqliteMatch = (words: readonly string[]): string => words.map((w) => `"${w}"`).join(' ');
