import { Type } from '@sinclair/typebox';
import { QxScoreResponse } from '../../details/schemas.js';
import { defineTool, Id } from '../tool.js';

/** A test's QXscores: GET /api/v2/testResults/{testId}/qxScores. */
export const getQxScores = defineTool({
  name: 'get_qx_scores',
  title: 'Get QXscores',
  description:
    "The QXscore of each QX_SCORE task group of a test, computed from its completed sessions' answers, as GET /api/v2/testResults/{testId}/qxScores answers: behavioral and attitudinal components and their mean (0-100).",
  input: Type.Object({ testId: Id('The test (from list_tests).') }),
  output: QxScoreResponse,
  async run(caller, input, deps) {
    return deps.details.qxScores(await deps.access.test(caller, input.testId, 'studies'));
  },
  render: (out) =>
    [
      `Test ${out.testId}: ${out.qxScores.length} QXscore(s) from ${out.meta.completes} completed session(s).`,
      ...out.qxScores.map((q) => `- ${q.label}: ${q.qxScore === null ? 'no score' : q.qxScore.toFixed(1)}`),
    ].join('\n'),
});
