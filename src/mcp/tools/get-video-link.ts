import { Type } from '@sinclair/typebox';
import { VideoDownloadResponse } from '../../media/schemas.js';
import { videoDownloadLink } from '../../media/video-download-link.js';
import { defineTool, Id } from '../tool.js';

/** A signed link to a session's video: GET /api/v2/sessionResults/{sessionId}/videoDownloadUrl. */
export const getVideoLink = defineTool({
  name: 'get_video_link',
  title: 'Get a video link',
  description:
    "A link to a session's video that works without a token for one hour (Range requests supported, so a player can seek), as GET /api/v2/sessionResults/{sessionId}/videoDownloadUrl answers.",
  input: Type.Object({ sessionId: Id('The session (from list_sessions).') }),
  output: VideoDownloadResponse,
  async run(caller, input, deps) {
    return videoDownloadLink(deps.storage, await deps.access.video(caller, input.sessionId));
  },
  render: (out) => `Video of session ${out.sessionId}, valid until ${out.expiresAt}: ${out.videoUrl}`,
});
