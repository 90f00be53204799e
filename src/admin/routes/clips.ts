import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ClipView, createClip, listClips, listClipsOfTest, MAX_CLIP_MS, MAX_TEST_CLIPS } from '../../operations/clips.js';
import type { OperationDeps } from '../../operations/deps.js';
import { conflict } from '../../store/conflicts.js';
import type { Session } from '../../store/store.js';
import { callerOf, requireRole } from '../caller.js';
import { adminResponses, Text, Uuid } from '../schemas.js';
import { requireTestAccess } from './access.js';

const SessionParams = Type.Object({ sessionId: Uuid });
const TestParams = Type.Object({ testId: Uuid });
const Milliseconds = Type.Integer({ minimum: 0, maximum: MAX_CLIP_MS, description: 'Milliseconds from the start of the video.' });
const CreateClipBody = Type.Object(
  { startMs: Milliseconds, endMs: Milliseconds, name: Text(200), description: Type.Optional(Text(2000)) },
  { additionalProperties: false },
);
const tags = ['Clips and reels'];

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

/** Clips of session videos (`results-api clips`): operators, and account admins within their workspaces. */
export function registerClipRoutes(app: FastifyInstance, deps: OperationDeps): void {
  app.get<{ Params: Static<typeof SessionParams> }>(
    '/admin/api/sessions/:sessionId/clips',
    { schema: { tags, summary: "A session's clips, in the order they start, with their status", params: SessionParams, response: adminResponses({ 200: Type.Array(ClipView) }, [404]) } },
    async (request) => {
      const session = await requireSession(request, deps, request.params.sessionId.toLowerCase());
      return listClips(deps, session.sessionId);
    },
  );

  app.post<{ Params: Static<typeof SessionParams>; Body: Static<typeof CreateClipBody> }>(
    '/admin/api/sessions/:sessionId/clips',
    {
      schema: {
        tags,
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
}
