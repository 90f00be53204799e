import { Type } from '@sinclair/typebox';
import { SessionResultsV3Response } from '../../details/schemas.js';
import type { SessionDetails } from '../../details/session-details.js';
import { sessionResultsView } from '../../details/session-results-view.js';
import { defineTool, Id } from '../tool.js';

/** What one session contains: GET /api/v3/sessionResults/{sessionId}. */
export const getSession = defineTool({
  name: 'get_session',
  title: 'Get session details',
  description:
    'What one session contains, as GET /api/v3/sessionResults/{sessionId} answers: the participant with demographics, every task group and task of the test plan with its prompt, type and response (start/end ms, skipped, the typed answer).',
  input: Type.Object({ sessionId: Id('The session (from list_sessions or search).') }),
  output: SessionResultsV3Response,
  async run(caller, input, deps) {
    const visible = await deps.access.session(caller, input.sessionId);
    return sessionResultsView(visible.session, visible.test, (await deps.access.detailsOf(visible)) as SessionDetails | null, 'v3');
  },
  render: (out) =>
    [
      `Session ${out.sessionId}: ${out.tasks.length} task(s), ${out.tasks.filter((t) => t.response !== null).length} with a response.`,
      ...out.tasks.map((t, i) => `${i + 1}. [${t.type}] ${t.text}${t.response === null ? ' (no response)' : ''}`),
    ].join('\n'),
});
