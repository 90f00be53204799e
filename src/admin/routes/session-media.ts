import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isoTime } from '../../cli/output.js';
import { SessionResultsV3Response } from '../../details/schemas.js';
import type { SessionDetails } from '../../details/session-details.js';
import { sessionResultsView } from '../../details/session-results-view.js';
import { parseRange } from '../../media/byte-ranges.js';
import { MediaLinkParams } from '../../media/schemas.js';
import { loadMediaLinkKey, MediaLinkSigner } from '../../media/storage/media-links.js';
import type { MediaStorage } from '../../media/storage/media-storage.js';
import { ClipView, createClip, createReel, JobView, listClips, listClipsOfTest, listJobs, listReels, MAX_CLIP_MS, MAX_REEL_CLIPS, MAX_TEST_CLIPS, ReelView } from '../../operations/clips.js';
import type { OperationDeps } from '../../operations/deps.js';
import { sessionSummary } from '../../results/session-summary.js';
import { conflict } from '../../store/conflicts.js';
import { JOB_STATES } from '../../store/jobs.js';
import { MAX_CUES_READ } from '../../store/transcripts.js';
import type { Session, Test } from '../../store/store.js';
import { callerOf, requireRole } from '../caller.js';
import { AdminProblem } from '../problems.js';
import { adminResponses, Problem } from '../schemas.js';
import { requireTestAccess } from './access.js';

/** How long a console player's video link works: long enough to watch a session, short enough not to matter once shared. */
export const ADMIN_VIDEO_LINK_SECONDS = 15 * 60;

/** Where the admin listener serves media through signed links: same origin as the console, so its CSP (media-src 'self') allows it. */
const ADMIN_MEDIA_BASE = '/admin';

const Uuid = Type.String({ format: 'uuid' });
const Text = (max: number) =>
  Type.String({ minLength: 1, maxLength: max, pattern: '^[^\\u0000-\\u001f\\u007f]*\\S[^\\u0000-\\u001f\\u007f]*$', description: `1-${max} printable characters.` });
const TestSessionParams = Type.Object({ testId: Uuid, sessionId: Uuid });
const SessionParams = Type.Object({ sessionId: Uuid });
const TestParams = Type.Object({ testId: Uuid });
const Milliseconds = Type.Integer({ minimum: 0, maximum: MAX_CLIP_MS, description: 'Milliseconds from the start of the video.' });
const CreateClipBody = Type.Object(
  { startMs: Milliseconds, endMs: Milliseconds, name: Text(200), description: Type.Optional(Text(2000)) },
  { additionalProperties: false },
);
const CreateReelBody = Type.Object(
  { name: Text(200), clipIds: Type.Array(Uuid, { minItems: 1, maxItems: MAX_REEL_CLIPS, description: 'Clips of the test\'s sessions, in playing order, each once.' }) },
  { additionalProperties: false },
);
const JobsQuery = Type.Object(
  {
    state: Type.Optional(Type.Union(JOB_STATES.map((s) => Type.Literal(s)))),
    kind: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'e.g. clip.generate' })),
    limit: Type.Integer({ minimum: 1, maximum: 10_000, default: 50 }),
  },
  { additionalProperties: false },
);

/** What a signed media link carries besides the object's key (see media-links.ts). */
const MediaLinkQuery = Type.Object({ expires: Type.Optional(Type.String({ maxLength: 20 })), signature: Type.Optional(Type.String({ maxLength: 100 })) });
type MediaLinkQuery = Static<typeof MediaLinkQuery>;

const SessionOverview = Type.Object(
  {
    session: Type.Object({
      sessionId: Uuid,
      testId: Uuid,
      audienceId: Type.Union([Type.String(), Type.Null()]),
      status: Type.String(),
      startTime: Type.String({ format: 'date-time' }),
      finishTime: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    }),
    details: SessionResultsV3Response,
    hasTranscript: Type.Boolean(),
    video: Type.Union([
      Type.Object({
        durationMs: Type.Integer({ minimum: 0 }),
        width: Type.Integer({ minimum: 0 }),
        height: Type.Integer({ minimum: 0 }),
        hasAudio: Type.Boolean(),
        hasPoster: Type.Boolean(),
      }),
      Type.Null(),
    ]),
    clips: Type.Array(ClipView),
  },
  { title: 'AdminSessionOverview', description: 'The session, its details as GET /api/v3/sessionResults/{sessionId} gives them, and what media it has.' },
);
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

/** A session the caller may see, found by its id alone; one they may not see is "no session", as an unknown one. */
async function requireSession(request: FastifyRequest, deps: OperationDeps, sessionId: string): Promise<Session> {
  requireRole(request, 'account-admin');
  const session = await deps.store.sessions.findSession(sessionId);
  if (!session) throw conflict.noSession(sessionId);
  try {
    await requireTestAccess(request, deps.store, session.testId);
  } catch {
    throw conflict.noSession(sessionId);
  }
  return session;
}

/**
 * A session's details, transcript cues and video (for the console's session page), clips, highlight
 * reels and the jobs that make them: the CLI's `clips`, `reels` and `jobs` commands. Operators
 * everything; account admins within the workspaces they administer; support nothing. Jobs span
 * every workspace: operators only.
 */
export function registerSessionMediaRoutes(app: FastifyInstance, deps: OperationDeps, links: MediaLinkSigner): void {
  const tags = { sessions: ['Sessions'], clips: ['Clips and reels'], jobs: ['Jobs'] };

  app.get<{ Params: Static<typeof TestSessionParams> }>(
    '/admin/api/tests/:testId/sessions/:sessionId',
    { schema: { tags: tags.sessions, summary: 'One session: its details (tasks, answers, task groups), whether it has a transcript and a video, its clips', params: TestSessionParams, response: adminResponses({ 200: SessionOverview }, [404]) } },
    async (request) => {
      const { session, test } = await requireSessionOfTest(request, deps, request.params.testId.toLowerCase(), request.params.sessionId.toLowerCase());
      const [details, cueCount, video, clips] = await Promise.all([
        deps.store.sessionDetails.findDetails(session.sessionId) as Promise<SessionDetails | null>,
        deps.store.transcripts.cueCount(session.sessionId),
        deps.store.videos.findVideo(session.sessionId),
        listClips(deps, session.sessionId),
      ]);
      return {
        session: { ...sessionSummary(session), testId: test.id },
        details: sessionResultsView(session, test, details),
        hasTranscript: cueCount !== null,
        video: video
          ? { durationMs: video.durationMs, width: video.width, height: video.height, hasAudio: video.hasAudio, hasPoster: video.posterKey !== null }
          : null,
        clips,
      };
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
        expiresAt: isoTime(link.expiresAt)!,
      };
    },
  );

  app.get<{ Params: Static<typeof SessionParams> }>(
    '/admin/api/sessions/:sessionId/clips',
    { schema: { tags: tags.clips, summary: "A session's clips, in the order they start, with their status", params: SessionParams, response: adminResponses({ 200: Type.Array(ClipView) }, [404]) } },
    async (request) => {
      const session = await requireSession(request, deps, request.params.sessionId.toLowerCase());
      return listClips(deps, session.sessionId);
    },
  );

  app.post<{ Params: Static<typeof SessionParams>; Body: Static<typeof CreateClipBody> }>(
    '/admin/api/sessions/:sessionId/clips',
    {
      schema: {
        tags: tags.clips,
        summary: "Clip a session's video (a running server cuts it: GENERATING, then GENERATED)",
        description: 'The range must be non-empty and end within the video; the session must have a video. Nothing is written otherwise.',
        params: SessionParams,
        body: CreateClipBody,
        response: adminResponses({ 201: ClipView }, [404]),
      },
    },
    async (request, reply) => {
      const session = await requireSession(request, deps, request.params.sessionId.toLowerCase());
      const { startMs, endMs, name, description } = request.body;
      const clip = await createClip(deps, { sessionId: session.sessionId, startMs, endMs, name: name.trim(), description: description?.trim() }, callerOf(request));
      return reply.code(201).send(clip);
    },
  );

  app.get<{ Params: Static<typeof TestParams> }>(
    '/admin/api/tests/:testId/clips',
    { schema: { tags: tags.clips, summary: `The clips of a test's sessions, newest first (at most ${MAX_TEST_CLIPS}): what its highlight reels are made of`, params: TestParams, response: adminResponses({ 200: Type.Array(ClipView) }, [404]) } },
    async (request) => {
      const { test } = await requireTestAccess(request, deps.store, request.params.testId.toLowerCase());
      return listClipsOfTest(deps, test.id);
    },
  );

  app.get<{ Params: Static<typeof TestParams> }>(
    '/admin/api/tests/:testId/reels',
    { schema: { tags: tags.clips, summary: "A test's highlight reels, with their status", params: TestParams, response: adminResponses({ 200: Type.Array(ReelView) }, [404]) } },
    async (request) => {
      const { test } = await requireTestAccess(request, deps.store, request.params.testId.toLowerCase());
      return listReels(deps, test.id);
    },
  );

  app.post<{ Params: Static<typeof TestParams>; Body: Static<typeof CreateReelBody> }>(
    '/admin/api/tests/:testId/reels',
    {
      schema: {
        tags: tags.clips,
        summary: "Join clips of the test's sessions into a highlight reel (made by a running server)",
        params: TestParams,
        body: CreateReelBody,
        response: adminResponses({ 201: ReelView }, [404, 409]),
      },
    },
    async (request, reply) => {
      const { caller, test } = await requireTestAccess(request, deps.store, request.params.testId.toLowerCase());
      const reel = await createReel(deps, { testId: test.id, name: request.body.name.trim(), clipIds: request.body.clipIds.map((id) => id.toLowerCase()) }, caller);
      return reply.code(201).send(reel);
    },
  );

  app.get<{ Querystring: Static<typeof JobsQuery> }>(
    '/admin/api/jobs',
    { schema: { tags: tags.jobs, summary: 'Background jobs (clips, reels), newest first, with their state and last error (operators)', querystring: JobsQuery, response: adminResponses({ 200: Type.Array(JobView) }) } },
    async (request) => {
      requireRole(request, 'operator');
      const { state, kind, limit } = request.query;
      return listJobs(deps, { limit, ...(state === undefined ? {} : { state }), ...(kind === undefined ? {} : { kind: kind.trim() }) });
    },
  );
}

/** Signs links to this listener's media route with the deployment's media link key. */
export async function adminMediaLinks(deps: Pick<OperationDeps, 'store' | 'clock'>): Promise<MediaLinkSigner> {
  return new MediaLinkSigner(await loadMediaLinkKey(deps.store.settings), ADMIN_MEDIA_BASE, deps.clock);
}

/**
 * GET /admin/media/<collection>/<owner>/<file>: the object a link from `video-link` names, to
 * whoever holds the link until it expires, with single byte ranges so the player can seek.
 * Registered outside the authenticated scope: the signature is the credential.
 */
export function registerAdminMediaRoute(app: FastifyInstance, deps: { storage: MediaStorage; links: MediaLinkSigner }): void {
  const serve = async (request: FastifyRequest<{ Params: MediaLinkParams; Querystring: MediaLinkQuery }>, reply: FastifyReply) => {
    const { collection, owner, file } = request.params;
    const key = `${collection}/${owner}/${file}`;
    const check = deps.links.check(key, request.query);
    if (!check.ok) throw new AdminProblem(403, 'link-refused', 'This media link is invalid or has expired; open the session again for a new one.');
    const object = await deps.storage.stat(key);
    if (!object) throw new AdminProblem(404, 'not-found', 'This file no longer exists (the video was replaced); open the session again.');
    reply.header('accept-ranges', 'bytes').header('cache-control', 'private, no-store').type(object.contentType);
    const asked = parseRange(request.headers.range, object.size);
    if (asked.kind === 'unsatisfiable') {
      reply.header('content-range', `bytes */${object.size}`);
      throw new AdminProblem(416, 'range-not-satisfiable', `The range lies outside the ${object.size} bytes of the file.`);
    }
    const range = asked.kind === 'range' ? asked.range : undefined;
    if (range) reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${object.size}`);
    reply.header('content-length', range ? range.end - range.start + 1 : object.size);
    if (request.method === 'HEAD') return reply.send();
    return reply.send(await deps.storage.getStream(key, range));
  };
  const route = { params: MediaLinkParams, querystring: MediaLinkQuery };
  const bytes = { description: 'The bytes of the object, or of the range asked for.', content: Object.fromEntries(['video/mp4', 'image/jpeg'].map((type) => [type, { schema: { type: 'string', format: 'binary' } }])) };
  app.head(`${ADMIN_MEDIA_BASE}/media/:collection/:owner/:file`, { schema: { ...route, hide: true } }, serve);
  app.get(
    `${ADMIN_MEDIA_BASE}/media/:collection/:owner/:file`,
    {
      exposeHeadRoute: false,
      schema: {
        ...route,
        tags: ['Sessions'],
        summary: 'Media through a link from video-link (no session or token: the link is the credential)',
        description: 'Single byte ranges are served (206), so a player can seek. An altered or expired link: 403.',
        security: [],
        response: { 200: bytes, 206: bytes, ...Object.fromEntries([400, 403, 404, 416, 503].map((status) => [status, { ...Problem, description: 'A refusal (problem details).' }])) },
      },
    },
    serve,
  );
}
