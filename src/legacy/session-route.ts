import type { FastifyInstance } from 'fastify';
import type { SessionDetails } from '../details/session-details.js';
import { VIDEO_LINK_SECONDS } from '../media/video-download-link.js';
import { NOT_FOUND } from '../results/responses.js';
import { legacyOperation, type LegacyDeps, type LegacyPrefix } from './legacy-operation.js';
import { legacyResponses } from './responses.js';
import { Session, SessionParams } from './schemas.js';
import { sessionView } from './views.js';

/** GET /usertesting/api/v1/session/{sessionUuid}: one session, whatever its status. */
export function registerSessionRoute(scope: FastifyInstance, prefix: LegacyPrefix, deps: LegacyDeps): void {
  scope.get<{ Params: SessionParams }>(
    `${prefix}/session/:sessionUuid`,
    {
      schema: {
        ...legacyOperation(prefix, { summary: 'One session, whatever its status', operationId: 'getSession' }),
        params: SessionParams,
        response: legacyResponses({ description: 'The session.', schema: Session }, { notFound: NOT_FOUND.session }),
      },
    },
    async (request) => {
      const visible = await deps.access.session(request.caller, request.params.sessionUuid);
      const [sequenceNumber, details, video] = await Promise.all([
        deps.sessions.sequenceNumber(visible.session),
        deps.access.detailsOf(visible),
        deps.videos.findVideo(visible.session.sessionId),
      ]);
      // The poster ffmpeg took from the video at import, behind a link as long-lived as the video's.
      const poster = video?.posterKey ? await deps.media.storage.signedUrl(video.posterKey, { expiresInSeconds: VIDEO_LINK_SECONDS }) : null;
      return sessionView(visible.session, visible.test, { sequenceNumber, details: details as SessionDetails | null, securePoster: poster?.url ?? null });
    },
  );
}
