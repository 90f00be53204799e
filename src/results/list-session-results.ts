import { apiErrors } from '../errors.js';
import type { AccessReads } from '../access/access-cache.js';
import type { Caller } from '../access/authenticate-request.js';
import type { Session, Test } from '../store/store.js';
import type { Paging } from './paging.js';
import type { SessionSummaryResultsResponse } from './schemas.js';
import type { SessionPageReader } from './session-pages.js';
import { isoTime } from './iso-time.js';

const toResult = (s: Session) => ({
  sessionId: s.sessionId,
  audienceId: s.audienceId,
  status: s.status,
  startTime: isoTime(s.startTime),
  finishTime: s.finishTime === null ? null : isoTime(s.finishTime),
});

/**
 * The body of one page of a test's session results, if the caller may see the test. A test
 * that does not exist and one outside the caller's workspaces get the same answer, so
 * existence does not leak. Visibility is checked on every request; the page itself may come
 * from the cache of serialized pages.
 */
export async function listSessionResults(
  deps: { reads: AccessReads; pages: SessionPageReader },
  caller: Caller,
  testId: string,
  paging: Paging,
  serialize: (page: SessionSummaryResultsResponse) => string,
): Promise<Buffer> {
  const test = await deps.reads.findVisibleTest(testId, caller.email);
  if (!test) throw apiErrors.testNotFound(`test ${testId} missing or outside the workspaces of ${caller.clientId}`);
  const key = `${test.id} ${paging.form} ${paging.offset} ${paging.limit}`;
  return deps.pages.cachedBody(key, async () => serialize(await readPage(deps.pages, test, paging)));
}

/**
 * Completed sessions only, as the real service lists them; the total is the count each import
 * stores per status, not a COUNT(*).
 */
async function readPage(pages: SessionPageReader, test: Test, paging: Paging): Promise<SessionSummaryResultsResponse> {
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
  return { testId: test.id, sessions: sessions.map(toResult), meta: { pagination } };
}
