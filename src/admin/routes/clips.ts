import { CLIP_SENTIMENTS } from '../../store/clips.js';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { ClipView, createClip, listClips, listClipsOfTest, MAX_CLIP_MS, MAX_TEST_CLIPS, MIN_CLIP_MS, retryClip } from '../../operations/clips.js';
import type { OperationDeps } from '../../operations/deps.js';
import { conflict } from '../../store/conflicts.js';
import { adminResponses, Text, Uuid } from '../schemas.js';
import { requireOfVisibleTest, requireTestAccess } from './access.js';

const SessionParams = Type.Object({ sessionId: Uuid });
const ClipParams = Type.Object({ clipId: Uuid });
const TestParams = Type.Object({ testId: Uuid });
const Milliseconds = Type.Integer({ minimum: 0, maximum: MAX_CLIP_MS, description: 'Milliseconds from the start of the video.' });
const CreateClipBody = Type.Object(
  {
    startMs: Milliseconds,
    endMs: Milliseconds,
    name: Text(200),
    description: Type.Optional(Text(2000)),
    sentiment: Type.Optional(Type.Union(CLIP_SENTIMENTS.map((s) => Type.Literal(s)), { description: 'The Legacy v1 sentimentTag.' })),
  },
  { additionalProperties: false },
);
const tags = ['Clips and reels'];

/** Clips of session videos (`results-api clips`): operators, and account admins within their workspaces. */
export function registerClipRoutes(app: FastifyInstance, deps: OperationDeps): void {
  app.get<{ Params: Static<typeof SessionParams> }>(
    '/admin/api/sessions/:sessionId/clips',
    { schema: { tags, summary: "A session's clips, in the order they start, with their status", params: SessionParams, response: adminResponses({ 200: Type.Array(ClipView) }, [404]) } },
    async (request) => {
      const sessionId = request.params.sessionId.toLowerCase();
      await requireOfVisibleTest(request, deps.store, await deps.store.sessions.findSession(sessionId), () => conflict.noSession(sessionId));
      return listClips(deps, sessionId);
    },
  );

  app.post<{ Params: Static<typeof SessionParams>; Body: Static<typeof CreateClipBody> }>(
    '/admin/api/sessions/:sessionId/clips',
    {
      schema: {
        tags,
        summary: "Clip a session's video (a running server cuts it: GENERATING, then GENERATED)",
        description:
          `The clip lasts at least ${MIN_CLIP_MS} ms, ends within the video and starts at or before its last frame (a later start ` +
          'has no picture to cut); the session must have a video. Nothing is written otherwise (400 naming the field and the rule).',
        params: SessionParams,
        body: CreateClipBody,
        response: adminResponses({ 201: ClipView }, [404]),
      },
    },
    async (request, reply) => {
      const sessionId = request.params.sessionId.toLowerCase();
      const { caller } = await requireOfVisibleTest(request, deps.store, await deps.store.sessions.findSession(sessionId), () => conflict.noSession(sessionId));
      const { startMs, endMs, name, description, sentiment } = request.body;
      const clip = await createClip(deps, { sessionId, startMs, endMs, name: name.trim(), description: description?.trim(), sentiment }, caller);
      return reply.code(201).send(clip);
    },
  );

  app.get<{ Params: Static<typeof TestParams> }>(
    '/admin/api/tests/:testId/clips',
    {
      schema: {
        tags,
        summary: `The clips of a test's sessions, newest first (at most ${MAX_TEST_CLIPS}): what its highlight reels are made of`,
        params: TestParams,
        response: adminResponses({ 200: Type.Array(ClipView) }, [404]),
      },
    },
    async (request) => {
      const { test } = await requireTestAccess(request, deps.store, request.params.testId.toLowerCase());
      return listClipsOfTest(deps, test.id);
    },
  );

  app.post<{ Params: Static<typeof ClipParams> }>(
    '/admin/api/clips/:clipId/retry',
    {
      schema: {
        tags,
        summary: 'Cut a failed clip again (ERROR, then GENERATING): a new set of attempts, audited',
        description: 'Refused (409) unless the clip is in ERROR, and (400) when its range can no longer be cut from its session\'s video.',
        params: ClipParams,
        response: adminResponses({ 200: ClipView }, [404, 409]),
      },
    },
    async (request) => {
      const clipId = request.params.clipId.toLowerCase();
      const { caller } = await requireOfVisibleTest(request, deps.store, await deps.store.clips.findClip(clipId), () => conflict.noClip(clipId));
      return retryClip(deps, clipId, caller);
    },
  );
}
