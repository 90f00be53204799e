import { Type } from '@sinclair/typebox';
import { cachedSessionResultsPage } from '../../results/list-session-results.js';
import { SessionSummaryResultItem } from '../../results/schemas.js';
import { defineTool, Id, nextCursor, PageInput, pageWindow } from '../tool.js';

/** The completed sessions of a test, newest first: GET /api/v2/sessionResults. */
export const listSessions = defineTool({
  name: 'list_sessions',
  title: 'List completed sessions',
  description: 'The completed sessions of a test, newest first, as GET /api/v2/sessionResults lists them. Their sessionIds open get_session, get_transcript, list_clips and get_video_link.',
  input: Type.Object({ testId: Id('The test (from list_tests).'), ...PageInput }),
  output: Type.Object({ testId: Type.String(), totalCount: Type.Integer(), sessions: Type.Array(SessionSummaryResultItem), nextCursor: Type.Optional(Type.String()) }),
  async run(caller, input, deps) {
    const test = await deps.access.test(caller, input.testId, 'sessions');
    const window = pageWindow('list_sessions', test.id, input);
    const page = await cachedSessionResultsPage(deps.pages, test, { form: 'offset', ...window });
    const totalCount = page.meta.pagination.totalCount;
    return { testId: test.id, totalCount, sessions: page.sessions, ...nextCursor('list_sessions', test.id, window, totalCount) };
  },
  render: (out) =>
    [`${out.totalCount} completed session(s) of test ${out.testId}:`, ...out.sessions.map((s) => `- ${s.sessionId} started ${s.startTime}`)].join('\n'),
});
