import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AccessReads } from '../access/access-cache.js';
import type { Caller } from '../access/authenticate-request.js';
import { API_SECURITY } from '../docs/security-schemes.js';
import { TAG } from '../docs/tags.js';
import { apiErrors } from '../errors.js';
import { strictQuery } from '../http/strict-query.js';
import type { SessionPageReader } from '../results/session-pages.js';
import type { SessionDetails } from '../details/session-details.js';
import type { Store } from '../store/store.js';
import { SessionCursors } from './cursor.js';
import { NOT_FOUND } from '../results/responses.js';
import { StudyNetPromoterScores } from './study-nps.js';
import { legacyResponses } from './responses.js';
import {
  COMPLETED_PAGE_SIZE,
  STUDIES_PAGE_SIZE,
  CompletedSessions,
  CompletedSessionsQuery,
  Session,
  SessionParams,
  Study,
  StudyParams,
  StudiesQuery,
  Workspace,
  WorkspaceParams,
  WorkspaceStudy,
} from './schemas.js';
import { completedSessionView, sessionView, studyPosition, studyView, workspaceStudyView, workspaceView } from './views.js';

export interface LegacyDeps {
  store: Pick<Store, 'directory' | 'sessions' | 'sessionDetails' | 'settings'>;
  reads: AccessReads;
  pages: Pick<SessionPageReader, 'count' | 'watcher' | 'clock'>;
}

/** Where the family is served: its real base path, and the same paths without the prefix. */
export const LEGACY_PREFIXES = ['/usertesting/api/v1', '/v1'] as const;

/**
 * The Legacy (v1) family: discovery of workspaces and their tests ("studies"), a test's plan,
 * its completed sessions by keyset cursor, and one session. Visibility is checked on every
 * request: what does not exist and what lies outside the caller's workspaces get the same 404.
 * Errors are rendered in the family's `{errorCode, errorMessage}` (src/http/legacy-errors.ts).
 */
export function registerLegacyRoutes(scope: FastifyInstance, deps: LegacyDeps): void {
  // The signing key is read (or generated) on first use, once per process.
  let cursors: Promise<SessionCursors> | undefined;
  const loadCursors = () => (cursors ??= SessionCursors.load(deps.store.settings).catch((e: unknown) => {
    cursors = undefined;
    throw e;
  }));
  const netPromoterScores = new StudyNetPromoterScores(deps.store.sessionDetails, deps.pages.watcher, deps.pages.clock);

  const visibleTest = async (caller: Caller, studyUuid: string) => {
    const test = await deps.reads.findVisibleTest(studyUuid, caller.email);
    if (!test) throw apiErrors.studyNotFound(`test ${studyUuid} missing or outside the workspaces of ${caller.clientId}`);
    return test;
  };

  for (const prefix of LEGACY_PREFIXES) {
    const primary = prefix !== '/v1';
    const name = (id: string) => (primary ? id : `${id}EarlierPath`);
    const earlier = primary ? '' : ' (without the /usertesting/api prefix)';
    const common = { tags: [TAG.legacy], security: API_SECURITY };

    scope.get(
      `${prefix}/workspaces`,
      {
        schema: {
          ...common,
          summary: `List the workspaces where the caller is a member${earlier}`,
          operationId: name('getWorkspaces'),
          response: legacyResponses({ description: 'The workspaces where the caller is a member, oldest first.', schema: Type.Array(Workspace) }),
        },
      },
      async (request) => (await deps.store.directory.listWorkspacesForMember(request.caller.email)).map(workspaceView),
    );

    scope.get<{ Params: WorkspaceParams; Querystring: StudiesQuery }>(
      `${prefix}/workspaces/:workspaceUuid`,
      {
        preValidation: strictQuery(StudiesQuery),
        schema: {
          ...common,
          summary: `List the tests (studies) of a workspace${earlier}`,
          description: 'Keep the entries whose `type` is STUDYV2: their `uuid` is the testId of the v2 API.',
          operationId: name('getWorkspaceStudies'),
          params: WorkspaceParams,
          querystring: StudiesQuery,
          response: legacyResponses(
            { description: `Up to ${STUDIES_PAGE_SIZE} tests of the workspace, oldest first; an empty page means done.`, schema: Type.Array(WorkspaceStudy) },
            { notFound: 'Workspace not found: no such workspace, or the caller is not a member (the same answer for both).' },
          ),
        },
      },
      async (request) => {
        const workspaceId = request.params.workspaceUuid.toLowerCase();
        const workspace = await deps.store.directory.getWorkspace(workspaceId);
        // Same answer for a missing workspace and another team's, so existence does not leak.
        if (!workspace || !(await deps.store.directory.isMember(workspaceId, request.caller.email))) {
          throw apiErrors.workspaceNotFound(`workspace ${workspaceId} missing or caller not a member`);
        }
        const { after, before } = request.query;
        if (after !== undefined && before !== undefined) throw apiErrors.invalidParameter('Use either after or before, not both.');
        const given = after ?? before;
        const position = given === undefined ? 0 : studyPosition(given);
        if (position === undefined) throw apiErrors.invalidParameter(`${after !== undefined ? 'after' : 'before'} is not a cursor this listing issued.`);
        const all = (await deps.store.directory.listTests(workspaceId)).map((t, i) => workspaceStudyView(t, i + 1));
        return before !== undefined
          ? all.slice(Math.max(0, position - 1 - STUDIES_PAGE_SIZE), position - 1)
          : all.slice(position, position + STUDIES_PAGE_SIZE);
      },
    );

    scope.get<{ Params: StudyParams }>(
      `${prefix}/studies/:studyUuid`,
      {
        schema: {
          ...common,
          summary: `A test with its plan, tasks and session count${earlier}`,
          operationId: name('getStudy'),
          params: StudyParams,
          response: legacyResponses(
            { description: 'The test.', schema: Study },
            { notFound: NOT_FOUND.study },
          ),
        },
      },
      async (request) => {
        const test = await visibleTest(request.caller, request.params.studyUuid.toLowerCase());
        return studyView(test, await netPromoterScores.of(test));
      },
    );

    scope.get<{ Params: StudyParams; Querystring: CompletedSessionsQuery }>(
      `${prefix}/studies/:studyUuid/completed-sessions`,
      {
        preValidation: strictQuery(CompletedSessionsQuery),
        schema: {
          ...common,
          summary: `The completed sessions of a test, ${COMPLETED_PAGE_SIZE} per page by cursor${earlier}`,
          description:
            'Only COMPLETE sessions, newest first. Pass the `cursor` of the last session as `after` for the next page ' +
            '(an empty page means done), or of the first as `before` for the previous one. Cursors are signed, belong to ' +
            'their test, and stay valid while sessions arrive: pages never shift, at any depth.',
          operationId: name('getStudyCompletedSessions'),
          params: StudyParams,
          querystring: CompletedSessionsQuery,
          response: legacyResponses(
            { description: 'One page of completed sessions.', schema: CompletedSessions },
            {
              notFound: NOT_FOUND.study,
              badRequest: 'A cursor that this listing did not issue (changed, forged, or of another study), `after` with `before`',
            },
          ),
        },
      },
      async (request) => {
        const test = await visibleTest(request.caller, request.params.studyUuid.toLowerCase());
        const { after, before } = request.query;
        if (after !== undefined && before !== undefined) throw apiErrors.invalidParameter('Use either after or before, not both.');
        const signer = await loadCursors();
        const from =
          after !== undefined
            ? { key: signer.decode('after', after, test.id), direction: 'after' as const }
            : before !== undefined
              ? { key: signer.decode('before', before, test.id), direction: 'before' as const }
              : undefined;
        const [sessions, completedSessionCount] = await Promise.all([
          deps.store.sessions.listCompletedSessions(test.id, COMPLETED_PAGE_SIZE, from),
          deps.pages.count(test.id),
        ]);
        // The page's details in one query, however many sessions it holds.
        const details = await deps.store.sessionDetails.listDetails(sessions.map((s) => s.sessionId));
        return {
          completedSessionCount,
          sessions: sessions.map((s) => completedSessionView(signer, s, test, (details.get(s.sessionId) as SessionDetails | undefined) ?? null)),
        };
      },
    );

    scope.get<{ Params: SessionParams }>(
      `${prefix}/session/:sessionUuid`,
      {
        schema: {
          ...common,
          summary: `One session, whatever its status${earlier}`,
          operationId: name('getSession'),
          params: SessionParams,
          response: legacyResponses(
            { description: 'The session.', schema: Session },
            { notFound: NOT_FOUND.session },
          ),
        },
      },
      async (request) => {
        const sessionId = request.params.sessionUuid.toLowerCase();
        const session = await deps.store.sessions.findSession(sessionId);
        const test = session ? await deps.reads.findVisibleTest(session.testId, request.caller.email) : null;
        if (!session || !test) throw apiErrors.sessionNotFound(`session ${sessionId} missing or outside the workspaces of ${request.caller.clientId}`);
        return sessionView(session, test);
      },
    );
  }
}
