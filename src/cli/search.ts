import type { Command } from 'commander';
import type { SearchHit } from '@results-api/client';
import { addCredentialOptions, openResultsClient, type CredentialFlags } from './api-credentials.js';
import { positiveIntegerArgument, uuidArgument } from './arguments.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, table, usageError, type OutputOptions } from './output.js';

/** The largest page GET /api/v2/search serves. */
const MAX_LIMIT = 100;
/** Where the search's offset stops (the route's bound). */
const MAX_OFFSET = 10_000;

type SearchOptions = CredentialFlags & OutputOptions & { test?: string; limit: string; offset: string };

/** `m:ss` into the session video; `-` for an answer without a time. */
const videoTime = (ms: number | null): string =>
  ms === null ? '-' : `${Math.floor(ms / 60_000)}:${String(Math.floor((ms % 60_000) / 1000)).padStart(2, '0')}`;

/**
 * `search "<words>"`: full-text search over the transcripts and answers the API user may see
 * (or one test's), through the API as the SDK's users search (GET /api/v2/search): one page of
 * hits, best first, as a table, or the API's answer as is with --json.
 */
export function registerSearchCommand(program: Command): void {
  addCredentialOptions(
    program
      .command('search')
      .description('search the transcripts and answers an API user may see, through the API (best hits first)')
      .argument('<words>', 'the words to find, every one (quote several: "checkout button")')
      .option('--test <uuid>', 'only this test')
      .option('--limit <n>', `hits to show (1-${MAX_LIMIT})`, '20')
      .option('--offset <n>', `hits to skip (0-${MAX_OFFSET}), for the next page`, '0')
      .option(JSON_FLAG, JSON_FLAG_HELP),
  ).action(async (words: string, options: SearchOptions) => {
    const query = {
      q: words,
      ...(options.test === undefined ? {} : { testId: uuidArgument('--test', options.test) }),
      limit: positiveIntegerArgument('--limit', options.limit, MAX_LIMIT),
      offset: offsetArgument(options.offset),
    };
    const client = await openResultsClient(options);
    const page = await client.search(query);
    emit(options, page, () => {
      const rows = table<SearchHit>(
        page.hits,
        [
          { header: 'SESSION', value: (h) => h.sessionId },
          { header: 'KIND', value: (h) => h.kind },
          { header: 'AT', value: (h) => videoTime(h.startMs) },
          { header: 'SPEAKER', value: (h) => h.speaker ?? '-' },
          { header: 'SNIPPET', value: (h) => h.snippet.replace(/\s+/g, ' ') },
        ],
        `no hits for "${page.query}"`,
      );
      return page.meta.hasMore ? `${rows}\n(more: --offset ${query.offset + query.limit})` : rows;
    });
  });
}

/** A whole number from 0 to MAX_OFFSET. */
function offsetArgument(value: string): number {
  const text = value.trim();
  const number = /^\d{1,6}$/.test(text) ? Number(text) : NaN;
  if (!(number <= MAX_OFFSET)) throw usageError(`--offset must be a whole number from 0 to ${MAX_OFFSET} (got "${value}")`);
  return number;
}
