import { apiErrors } from '../errors.js';

/** The longest query accepted: a question an analyst types, not a document. */
export const MAX_QUERY_LENGTH = 200;
/** The most words a query may have (every one must occur in a hit). */
export const MAX_QUERY_WORDS = 12;

const WORD = /[\p{L}\p{N}]+/gu;

/**
 * The words of a search query: runs of letters and digits, lower-cased, each once. Nothing
 * else of the query reaches the index: quotes, operators (AND, OR, NEAR, `*`, `:`, `^`, `!`,
 * `&`, `|`) and column filters are separators, so no query can change what the engine is asked.
 * Bounded before it is looked at.
 */
export function searchWords(query: string, name = 'q'): string[] {
  if (query.length > MAX_QUERY_LENGTH) {
    throw apiErrors.invalidParameter(`${name} must be at most ${MAX_QUERY_LENGTH} characters (got ${query.length}).`);
  }
  const words = [...new Set(query.normalize('NFKC').toLowerCase().match(WORD) ?? [])];
  if (words.length === 0) throw apiErrors.invalidParameter(`${name} has no words to search for: give at least one word of letters or digits.`);
  if (words.length > MAX_QUERY_WORDS) {
    throw apiErrors.invalidParameter(`${name} may have at most ${MAX_QUERY_WORDS} different words (got ${words.length}).`);
  }
  return words;
}
