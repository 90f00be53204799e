import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isoTime } from '../../iso-time.js';
import type { MediaLinkSigner } from '../../media/storage/media-links.js';
import type { OperationDeps } from '../../operations/deps.js';
import { SessionOverview, sessionOverview } from '../../operations/sessions.js';
import { conflict } from '../../store/conflicts.js';
import { MAX_CUES_READ } from '../../store/transcripts.js';
import type { Session, Test } from '../../store/store.js';
import { AdminProblem } from '../problems.js';
import { adminResponses, Uuid } from '../schemas.js';
import { requireTestAccess } from './access.js';

/** How long a console player's video link works: long enough to watch a session, short enough not to matter once shared. */
export const ADMIN_VIDEO_LINK_SECONDS = 15 * 60;

const TestSessionParams = Type.Object({ testId: Uuid, sessionId: Uuid });
const TranscriptQuery = Type.Object(
  {
    offset: Type.Integer({ minimum: 0, default: 0, description: 'How many cues to skip, in file order.' }),
    limit: Type.Integer({ minimum: 1, maximum: MAX_CUES_READ, default: MAX_CUES_READ, description: 'The most cues to return.' }),
  },
  { additionalProperties: false },
);
const Transcript = Type.Object(
  {
    sessionId: Uuid,
    cueCount: Type.Integer({ minimum: 0, description: 'How many cues the transcript has in all.' }),
    offset: Type.Integer({ minimum: 0 }),
    cues: Type.Array(Type.Object({ startMs: Type.Integer({ minimum: 0 }), endMs: Type.Integer({ minimum: 0 }), text: Type.String() }), {
      description: 'The cues from `offset` on, in file order; markup such as <v Speaker> as written.',
    }),
  },
  { title: 'AdminTranscript' },
);
const VideoLink = Type.Object(
  {
    videoUrl: Type.String({ description: 'A link on this listener (a path), signed for this video alone; it answers Range requests.' }),
    posterUrl: Type.Union([Type.String(), Type.Null()], { description: 'The poster frame, signed alike, when the video has one.' }),
    contentType: Type.String(),
    expiresAt: Type.String({ format: 'date-time' }),
  },
  { title: 'AdminVideoLink' },
);

/**
 * A session of a test the caller may see (see requireTestAccess), or the same 404 for one that
 * does not exist or is in another test.
 */
async function requireSessionOfTest(request: FastifyRequest, deps: OperationDeps, testId: string, sessionId: string): Promise<{ session: Session; test: Test }> {
  const { test } = await requireTestAccess(request, deps.store, testId);
  const session = await deps.store.sessions.findSession(sessionId);
  if (!session || session.testId !== testId) throw conflict.noSessionInTest(sessionId, testId);
  return { session, test };
}

/**
 * A session's details, transcript cues and video, for the console's session page: operators,
 * and account admins within the workspaces they administer.
 */
export function registerSessionMediaRoutes(app: FastifyInstance, deps: OperationDeps, links: MediaLinkSigner): void {
  const tags = { sessions: ['Sessions'] };

  app.get<{ Params: Static<typeof TestSessionParams> }>(
    '/admin/api/tests/:testId/sessions/:sessionId',
    { schema: { tags: tags.sessions, summary: 'One session: its details (tasks, answers, task groups), whether it has a transcript and a video, its clips', params: TestSessionParams, response: adminResponses({ 200: SessionOverview }, [404]) } },
    async (request) => {
      const { session, test } = await requireSessionOfTest(request, deps, request.params.testId.toLowerCase(), request.params.sessionId.toLowerCase());
      return sessionOverview(deps, session, test);
    },
  );

  app.get<{ Params: Static<typeof TestSessionParams>; Querystring: Static<typeof TranscriptQuery> }>(
    '/admin/api/tests/:testId/sessions/:sessionId/transcript',
    {
      schema: {
        tags: tags.sessions,
        summary: `A session's transcript: its cues with their times, ${MAX_CUES_READ} at a time`,
        description: 'The cues as read from the WebVTT file when it was imported (never parsed here), in file order, a page at a time.',
        params: TestSessionParams,
        querystring: TranscriptQuery,
        response: adminResponses({ 200: Transcript }, [404]),
      },
    },
    async (request) => {
      const { session } = await requireSessionOfTest(request, deps, request.params.testId.toLowerCase(), request.params.sessionId.toLowerCase());
      const { offset, limit } = request.query;
      const range = await deps.store.transcripts.readCues(session.sessionId, offset, limit);
      if (!range) throw new AdminProblem(404, 'not-found', `session ${session.sessionId} has no transcript`);
      return { sessionId: session.sessionId, offset, ...range };
    },
  );

  app.get<{ Params: Static<typeof TestSessionParams> }>(
    '/admin/api/tests/:testId/sessions/:sessionId/video-link',
    {
      schema: {
        tags: tags.sessions,
        summary: "A short-lived link to a session's video (and its poster) for a player",
        description:
          `Links on this listener, signed for one object each, valid ${ADMIN_VIDEO_LINK_SECONDS / 60} minutes: a <video> element can ` +
          'play and seek them without a cookie or token (the signature is redacted from request logs).',
        params: TestSessionParams,
        response: adminResponses({ 200: VideoLink }, [404]),
      },
    },
    async (request) => {
      const { session } = await requireSessionOfTest(request, deps, request.params.testId.toLowerCase(), request.params.sessionId.toLowerCase());
      const video = await deps.store.videos.findVideo(session.sessionId);
      if (!video) throw conflict.noVideo(session.sessionId);
      const options = { expiresInSeconds: ADMIN_VIDEO_LINK_SECONDS };
      const link = links.sign(video.objectKey, options);
      return {
        videoUrl: link.url,
        posterUrl: video.posterKey === null ? null : links.sign(video.posterKey, options).url,
        contentType: video.contentType,
        expiresAt: isoTime(link.expiresAt),
      };
    },
  );
}
