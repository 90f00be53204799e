import { Type, type Static } from '@sinclair/typebox';
import { SessionResultsV3Response } from '../details/schemas.js';
import type { SessionDetails } from '../details/session-details.js';
import { sessionResultsView } from '../details/session-results-view.js';
import { sessionSummary } from '../results/session-summary.js';
import type { Session, Test } from '../store/store.js';
import { ClipView, listClips } from './clips.js';
import type { OperationDeps } from './deps.js';

/** A test's sessions as the admin console pages through them, and one session with its media. */

const Time = Type.String({ format: 'date-time' });
const NullableTime = Type.Union([Time, Type.Null()]);

export const SessionRow = Type.Object(
  {
    sessionId: Type.String(),
    audienceId: Type.Union([Type.String(), Type.Null()]),
    status: Type.String(),
    startTime: Time,
    finishTime: NullableTime,
    hasVideo: Type.Boolean({ description: 'Whether a video was imported for the session.' }),
    hasTranscript: Type.Boolean({ description: 'Whether a transcript was imported for the session.' }),
  },
  { title: 'AdminSession' },
);
export const SessionsPage = Type.Object({ sessions: Type.Array(SessionRow), totalCount: Type.Integer({ minimum: 0 }) }, { title: 'AdminSessionPage' });

export interface SessionsQuery {
  status?: string | undefined;
  limit: number;
  offset: number;
}

/** A page of the test's sessions of every status (or one), newest first, each marked with the media it has, and how many match. */
export async function listTestSessions(d: Pick<OperationDeps, 'store'>, test: Test, query: SessionsQuery): Promise<Static<typeof SessionsPage>> {
  const { status, limit, offset } = query;
  const sessions = await d.store.sessions.listSessions(test.id, offset, limit, status === undefined ? {} : { status });
  const [totalCount, media] = await Promise.all([
    status === undefined ? test.sessionCount : d.store.sessions.countSessions(test.id, status),
    d.store.sessions.mediaOf(sessions.map((s) => s.sessionId)),
  ]);
  return {
    sessions: sessions.map((s) => ({
      ...sessionSummary(s),
      hasVideo: media.videos.has(s.sessionId),
      hasTranscript: media.transcripts.has(s.sessionId),
    })),
    totalCount,
  };
}

const Uuid = Type.String({ format: 'uuid' });

export const SessionOverview = Type.Object(
  {
    session: Type.Object({
      sessionId: Uuid,
      testId: Uuid,
      audienceId: Type.Union([Type.String(), Type.Null()]),
      status: Type.String(),
      startTime: Time,
      finishTime: NullableTime,
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

/** One session: its details (as the v3 API shapes them), whether it has a transcript and a video, and its clips. */
export async function sessionOverview(d: Pick<OperationDeps, 'store'>, session: Session, test: Test): Promise<Static<typeof SessionOverview>> {
  const [details, cueCount, video, clips] = await Promise.all([
    d.store.sessionDetails.findDetails(session.sessionId) as Promise<SessionDetails | null>,
    d.store.transcripts.cueCount(session.sessionId),
    d.store.videos.findVideo(session.sessionId),
    listClips(d, session.sessionId),
  ]);
  return {
    session: { ...sessionSummary(session), testId: test.id },
    details: sessionResultsView(session, test, details, 'v3'),
    hasTranscript: cueCount !== null,
    video: video ? { durationMs: video.durationMs, width: video.width, height: video.height, hasAudio: video.hasAudio, hasPoster: video.posterKey !== null } : null,
    clips,
  };
}
