import type { FastifyInstance } from 'fastify';
import type { AccessReads } from '../access/access-cache.js';
import type { Caller } from '../access/authenticate-request.js';
import { API_SECURITY } from '../docs/security-schemes.js';
import { TAG } from '../docs/tags.js';
import { apiErrors } from '../errors.js';
import type { OpenedMediaStorage } from '../media/storage/open-media-storage.js';
import { apiResponses } from '../results/responses.js';
import { clipObjectKey, type Clip } from '../store/clips.js';
import type { Store } from '../store/store.js';
import type { Video } from '../store/videos.js';
import { ClipDetailsResponse, ClipParams, ClipsResponse, SessionClipsParams } from './schemas.js';

export interface ClipRouteDeps {
  store: Pick<Store, 'sessions' | 'videos' | 'clips'>;
  reads: AccessReads;
  media: OpenedMediaStorage;
}

/** The real API's clip links last 15 minutes. */
export const CLIP_LINK_SECONDS = 15 * 60;

const COMPATIBILITY =
  ' Visibility is the session list\'s: a session that does not exist and one in a test outside the caller\'s workspaces get the same 404.';

/**
 * The "Video Data" clip operations of the Results API: a session video's clips, and one
 * clip's state with a 15-minute download link once it is cut. Visibility is checked on every
 * request, through the session's test.
 */
export function registerClipRoutes(scope: FastifyInstance, deps: ClipRouteDeps): void {
  /** The session's video, if the caller may see the session; the same 404 for missing and foreign. */
  const visibleVideo = async (caller: Caller, sessionId: string): Promise<Video> => {
    const session = await deps.store.sessions.findSession(sessionId);
    const test = session && (await deps.reads.findVisibleTest(session.testId, caller.email));
    if (!session || !test) throw apiErrors.sessionNotFound(`session ${sessionId} missing or outside the workspaces of ${caller.clientId}`);
    const video = await deps.store.videos.findVideo(sessionId);
    if (!video) throw apiErrors.videoNotFound(`session ${sessionId} has no video`);
    return video;
  };

  scope.get<{ Params: SessionClipsParams }>(
    '/api/v2/sessionResults/:sessionId/clips',
    {
      schema: {
        summary: 'List the clips of a session video',
        description:
          'The clips cut from the session\'s video, in the order they start, with their timing, sound and camera flags and ' +
          'layout, and the video\'s screen and camera regions.' + COMPATIBILITY,
        tags: [TAG.videoData],
        operationId: 'SessionResultsController_getClips',
        security: API_SECURITY,
        params: SessionClipsParams,
        response: apiResponses(
          { description: 'The session video\'s clips.', schema: ClipsResponse },
          { notFound: 'Session not found (no such session, or none the caller may see), or the session has no video.' },
        ),
      },
    },
    async (request) => {
      const sessionId = request.params.sessionId.toLowerCase();
      const video = await visibleVideo(request.caller, sessionId);
      const clips = await deps.store.clips.listClips(sessionId);
      const body: ClipsResponse = { studyUuid: video.testId, clips: clips.map((c) => clipView(c, video)) };
      if (video.regions.screen || video.regions.camera) body.videoRegions = video.regions;
      return body;
    },
  );

  scope.get<{ Params: ClipParams }>(
    '/api/v2/sessionResults/:sessionId/clips/:clipUuid',
    {
      schema: {
        summary: 'Get a clip\'s state and download link',
        description:
          'GENERATING while the clip is being cut (ask again every few seconds), GENERATED with a `clipUrl` that downloads ' +
          'it for 15 minutes (ask again for a fresh one), or ERROR when cutting failed: that answer also starts a new ' +
          'attempt, so ask again.' + COMPATIBILITY,
        tags: [TAG.videoData],
        operationId: 'SessionResultsController_getClipDetails',
        security: API_SECURITY,
        params: ClipParams,
        response: apiResponses(
          { description: 'The clip\'s state, and its download link once generated.', schema: ClipDetailsResponse },
          { notFound: 'Clip not found: no such clip in this session, or a session the caller may not see (the same answer).' },
        ),
      },
    },
    async (request) => {
      const sessionId = request.params.sessionId.toLowerCase();
      const clipId = request.params.clipUuid.toLowerCase();
      await visibleVideo(request.caller, sessionId);
      const clip = await deps.store.clips.findClip(clipId);
      if (!clip || clip.sessionId !== sessionId) throw apiErrors.clipNotFound(`clip ${clipId} missing or not of session ${sessionId}`);
      if (clip.status === 'ERROR') {
        await deps.store.clips.retryClip(clip.id, { actor: `api:${request.caller.clientId}` });
        return { clipUuid: clip.id, status: clip.status, clipUrl: null } satisfies ClipDetailsResponse;
      }
      if (clip.status === 'GENERATING') return { clipUuid: clip.id, status: clip.status, clipUrl: null } satisfies ClipDetailsResponse;
      const link = await deps.media.storage.signedUrl(clipObjectKey(clip.id), { expiresInSeconds: CLIP_LINK_SECONDS });
      return { clipUuid: clip.id, status: clip.status, clipUrl: link.url } satisfies ClipDetailsResponse;
    },
  );
}

function clipView(clip: Clip, video: Video) {
  return {
    uuid: clip.id,
    name: clip.name,
    ...(clip.description === null ? {} : { description: clip.description }),
    timeStartMs: clip.startMs,
    timeEndMs: clip.endMs,
    videoUuid: video.sessionId,
    hasAudio: video.hasAudio,
    hasCamera: video.regions.camera !== undefined,
    layout: clip.layout,
  };
}
