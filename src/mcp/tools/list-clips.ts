import { Type } from '@sinclair/typebox';
import { sessionClips } from '../../clips/clip-views.js';
import { ClipsResponse } from '../../clips/schemas.js';
import { clockTime } from './clock-time.js';
import { defineTool, Id, NextCursor, pageOf, PageInput } from '../tool.js';

/** The clips of a session's video: GET /api/v2/sessionResults/{sessionId}/clips. */
export const listClips = defineTool({
  name: 'list_clips',
  title: 'List clips',
  description: "The clips cut from a session's video, in the order they start, as GET /api/v2/sessionResults/{sessionId}/clips lists them.",
  input: Type.Object({ sessionId: Id('The session (from list_sessions).'), ...PageInput }),
  output: Type.Object({ ...ClipsResponse.properties, total: Type.Integer(), nextCursor: NextCursor }),
  async run(caller, input, deps) {
    const video = await deps.access.videoOfSession(caller, input.sessionId, 'clips');
    const all = await sessionClips(deps.clips, video);
    const page = pageOf('list_clips', video.sessionId, all.clips, input);
    return { ...all, clips: page.items, total: page.total, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  },
  render: (out) => [`${out.total} clip(s):`, ...out.clips.map((c) => `- ${c.name} (${c.uuid}) ${clockTime(c.timeStartMs)}-${clockTime(c.timeEndMs)}`)].join('\n'),
});
