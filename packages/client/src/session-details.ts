/**
 * The SDK's session details: types of session details (GET /api/v3/sessionResults/{sessionId}) and QXscores
 * (GET /api/v2/testResults/{testId}/qxScores), as the real contract names them.
 */
import type { CallOptions, SessionIterationOptions, SessionResult } from './types.js';

export interface DemographicInfo {
  id: string | null;
  code: string | null;
  label: string | null;
  value: string | null;
  type: 'DEMOGRAPHIC_QUESTION_TYPE_SINGLE' | 'DEMOGRAPHIC_QUESTION_TYPE_MULTIPLE' | 'UNRECOGNIZED' | null;
}

export interface TaskGroupItem {
  uuid: string;
  type: 'QX_SCORE' | 'BALANCED_COMPARISON' | 'UNRECOGNIZED';
  /** QX_SCORE: `{score}`; BALANCED_COMPARISON: `{sequence}`; null when there is none. */
  response: { score: number } | { sequence: string } | null;
}

/** The answer under its task type's key, e.g. `{ratingScale: {value: 4}}`. */
export interface TaskAnswer {
  blank?: Record<string, never> | null;
  ratingScale?: { value: number } | null;
  multipleChoice?: { selected: string[] } | null;
  image?: Record<string, never> | null;
  nps?: { value: number } | null;
  url?: { success: boolean } | null;
  rankOrder?: { ranking: string[] } | null;
  written?: { text: string } | null;
  figma?: { success: boolean } | null;
  matrix?: { rows: Record<string, string> } | null;
}

export interface TaskItem {
  uuid: string;
  text: string;
  type: 'BLANK' | 'RATING_SCALE' | 'MULTIPLE_CHOICE' | 'IMAGE' | 'NPS' | 'URL' | 'RANK_ORDER' | 'WRITTEN' | 'FIGMA' | 'MATRIX' | 'UNRECOGNIZED';
  response: { startTimeMs: number; endTimeMs: number; skipped: boolean; answer: TaskAnswer | null } | null;
}

/** What one session contains (`SessionResultsV3ResponseDto`). */
export interface SessionDetails {
  sessionId: string | null;
  audienceId: string | null;
  testPlanId: string | null;
  /** `name` is an extension of this service (the participant's name or email as imported); absent from the real service. */
  sessionParticipant: { participantId: string | null; demographicsInfo: DemographicInfo[]; name?: string | null } | null;
  taskGroups: TaskGroupItem[];
  tasks: TaskItem[];
  /** Extensions of this service: what only a session's import knows (as the Legacy v1 family shows it); absent from the real service. */
  formFactorUsed?: string | null;
  taskOrderingCondition?: string | null;
  notes?: string | null;
  screenerResponses?: { question: string; response: string[] }[];
}

/** The QXscores of a test (`QxScoreResponseApi`). */
export interface QxScores {
  testId: string;
  qxScores: {
    taskGroupId: string;
    label: string;
    qxScore: number | null;
    components: { behavioral: number | null; attitudinal: number };
    values: { behavioral: number[] | null; usability: number; trust: number; appearance: number; loyalty: number };
  }[];
  meta: { totalQxTasks: number; completes: number };
}

/** A session of the listing with what it contains. */
export interface SessionWithDetails {
  session: SessionResult;
  details: SessionDetails;
}

export interface SessionsWithDetailsOptions extends SessionIterationOptions {
  /** Details requests in flight at once, 1–16 (default 4); each still waits out a 429's Retry-After. */
  concurrency?: number;
}

/**
 * Pairs each session of `sessions` with its details, fetching up to `concurrency` ahead while
 * yielding in listing order. A failed fetch is thrown when its session's turn comes; the
 * fetches still in flight are then left to finish unobserved (their errors are swallowed).
 */
export async function* pairWithDetails(
  sessions: AsyncIterable<SessionResult>,
  fetchDetails: (sessionId: string, options: CallOptions) => Promise<SessionDetails>,
  concurrency: number,
  options: CallOptions,
): AsyncGenerator<SessionWithDetails, void, undefined> {
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 16) {
    throw new RangeError(`sessionsWithDetails: concurrency must be an integer from 1 to 16 (got ${concurrency})`);
  }
  const pending: Promise<SessionWithDetails>[] = [];
  const start = (session: SessionResult) => {
    const fetched = fetchDetails(session.sessionId, options).then((details) => ({ session, details }));
    fetched.catch(() => undefined); // observed when its turn comes
    pending.push(fetched);
  };
  for await (const session of sessions) {
    start(session);
    if (pending.length >= concurrency) yield await pending.shift()!;
  }
  while (pending.length > 0) yield await pending.shift()!;
}
