import { apiErrors } from '../errors.js';
import type { AccessReads } from '../access/access-cache.js';
import type { Session } from '../store/store.js';
import type { SessionPageReader } from './session-pages.js';
import type { Caller } from '../access/authenticate-request.js';
import type { Paging } from './paging.js';
import type { SessionResultsPage } from './schemas.js';

const iso = (ms: number): string => new Date(ms).toISOString();

const toResult = (s: Session) => ({
  sessionId: s.sessionId,
  audienceId: s.audienceId,
  status: s.status,
  startTime: iso(s.startTime),
  finishTime: s.finishTime === null ? null : iso(s.finishTime),
});

/**
 * One page of a test's session results, if the caller may see the test. A test that does
 * not exist and one outside the caller's workspaces get the same answer, so existence does
 * not leak. The total comes from the count stored with the test, not a COUNT(*).
 */
export async function listSessionResults(
  deps: { reads: AccessReads; pages: SessionPageReader },
  caller: Caller,
  testId: string,
  paging: Paging,
): Promise<SessionResultsPage> {
  const test = await deps.reads.findVisibleTest(testId, caller.email);
  if (!test) throw apiErrors.testNotFound(`test ${testId} missing or outside the workspaces of ${caller.clientId}`);
  const totalCount = test.sessionCount;
  const sessions = paging.offset < totalCount ? await deps.pages.read(test.id, paging.offset, paging.limit) : [];
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
