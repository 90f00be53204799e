import { Type } from '@sinclair/typebox';
import { testReels } from '../../clips/clip-views.js';
import { HighlightReelsResponse } from '../../clips/schemas.js';
import { clockTime } from './clock-time.js';
import { defineTool, Id, NextCursor, pageOf, PageInput } from '../tool.js';

/** A test's highlight reels: GET /api/v2/testResults/{testId}/highlightreels. */
export const listHighlightReels = defineTool({
  name: 'list_highlight_reels',
  title: 'List highlight reels',
  description: "A test's highlight reels, oldest first, as GET /api/v2/testResults/{testId}/highlightreels lists them.",
  input: Type.Object({ testId: Id('The test (from list_tests).'), ...PageInput }),
  output: Type.Object({ ...HighlightReelsResponse.properties, total: Type.Integer(), nextCursor: NextCursor }),
  async run(caller, input, deps) {
    const test = await deps.access.test(caller, input.testId, 'clips');
    const all = await testReels(deps.reels, test);
    const page = pageOf('list_highlight_reels', test.id, all.reels, input);
    return { ...all, reels: page.items, total: page.total, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  },
  render: (out) => [`${out.total} highlight reel(s):`, ...out.reels.map((r) => `- ${r.name} (${r.uuid}): ${r.numClips} clip(s), ${clockTime(r.durationMs)}`)].join('\n'),
});
