/**
 * The words PostgreSQL's `english` text search configuration drops (its dictionary's stop list,
 * `tsearch_data/english.stop`): too common to narrow a search. SQLite's FTS5 indexes every
 * word, so the query drops them on both engines alike; without this, `the` matched two thirds
 * of the cues on SQLite and nothing on PostgreSQL, and counting its rows for BM25 cost ~30 ms.
 */
const ENGLISH_STOP_WORDS = new Set(
  (
    'i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it its itself ' +
    'they them their theirs themselves what which who whom this that these those am is are was were be been being have has had having ' +
    'do does did doing a an the and but if or because as until while of at by for with about against between into through during ' +
    'before after above below to from up down in out on off over under again further then once here there when where why how all any ' +
    'both each few more most other some such no nor not only own same so than too very s t can will just don should now'
  ).split(' '),
);

/** The words a search looks for: `words` without the stop words (none left: nothing to find, as on PostgreSQL). */
export const searchedWords = (words: readonly string[]): string[] => words.filter((w) => !ENGLISH_STOP_WORDS.has(w));
