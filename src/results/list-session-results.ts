import type { Test } from '../store/store.js';
import type { Paging } from './paging.js';
import type { SessionSummaryResultsResponse } from './schemas.js';
import type { SessionPageReader } from './session-pages.js';
import { sessionSummary } from './session-summary.js';

/**
 * The body of one page of a visible test's session results (see ResourceAccess.test), from
 * the cache of serialized pages or rendered now.
 */
export function listSessionResults(
  pages: SessionPageReader,
  test: Test,
  paging: Paging,
  serialize: (page: SessionSummaryResultsResponse) => string,
): Promise<Buffer> {
  return pages.cachedBody(pageKey(test, paging), async () => serialize(await sessionResultsPage(pages, test, paging)));
}

/** One page of a visible test's session results as an object, from the cache of pages or read now; shared: never modify it. */
export function cachedSessionResultsPage(pages: SessionPageReader, test: Test, paging: Paging): Promise<SessionSummaryResultsResponse> {
  return pages.cachedPage(pageKey(test, paging), () => sessionResultsPage(pages, test, paging));
}

const pageKey = (test: Test, paging: Paging) => `${test.id} ${paging.form} ${paging.offset} ${paging.limit}`;

/**
 * Completed sessions only, as the real service lists them; the total is the count each import
 * stores per status, not a COUNT(*).
 */
export async function sessionResultsPage(pages: SessionPageReader, test: Test, paging: Paging): Promise<SessionSummaryResultsResponse> {
  const totalCount = await pages.count(test.id);
  const sessions = paging.offset < totalCount ? await pages.read(test.id, paging.offset, paging.limit) : [];
  const pagination =
    paging.form === 'offset'
      ? { limit: paging.limit, offset: paging.offset, totalCount }
      : {
          limit: paging.limit,
          offset: paging.offset,
          totalCount,
          rowsPerPage: paging.rowsPerPage,
          pageNumber: paging.pageNumber,
          totalPages: Math.ceil(totalCount / paging.rowsPerPage),
        };
  return { testId: test.id, sessions: sessions.map(sessionSummary), meta: { pagination } };
}
