import { apiErrors } from '../errors.js';
import { isoTime } from '../iso-time.js';
import type { Session, Test, Workspace } from '../store/store.js';
import type { SessionDetails } from '../details/session-details.js';
import type { SessionMedia } from './answer-media.js';
import { legacyAnswers, type NetPromoterScore } from './answers.js';
import { legacyNumericId } from './numeric-id.js';
import { legacyParticipant } from './participant.js';
import type { SessionCursors } from './cursor.js';
import { pageFrom } from './page-from.js';
import { STUDIES_PAGE_SIZE, type StudiesQuery } from './schemas.js';

/** How stored records look in the Legacy (v1) family. Absent facts are left out, as its schemas allow. */

const person = (t: Test) => (t.orderedBy ? { orderedBy: { email: t.orderedBy.email, ...(t.orderedBy.name ? { name: t.orderedBy.name } : {}) } } : {});

/** `id` is the workspace's numeric id (as text, as the real one), distinct from its `uuid`. */
export const workspaceView = (w: Workspace) => ({ id: String(legacyNumericId(w.id)), name: w.name, uuid: w.id });

/** Tests are only ever added, after the others, so a test's position in its workspace's listing never changes. */
export const studyCursor = (position: number): string => Buffer.from(`study:${position}`).toString('base64url');

/** The position a study cursor names, or undefined if it is not one. */
function studyPosition(cursor: string): number | undefined {
  const match = /^study:([1-9]\d{0,8})$/.exec(Buffer.from(cursor, 'base64url').toString());
  return match ? Number(match[1]) : undefined;
}

/** The page of a workspace's tests (all of them, oldest first) that `query` asks for. */
export function workspaceStudiesPage(tests: readonly Test[], query: StudiesQuery) {
  const from = pageFrom(query);
  const position = from ? studyPosition(from.cursor) : 0;
  if (position === undefined) throw apiErrors.invalidParameter(`${from!.direction} is not a cursor this listing issued.`);
  const all = tests.map((t, i) => workspaceStudyView(t, i + 1));
  return from?.direction === 'before'
    ? all.slice(Math.max(0, position - 1 - STUDIES_PAGE_SIZE), position - 1)
    : all.slice(position, position + STUDIES_PAGE_SIZE);
}

/** A test as an entry of its workspace's listing (`position` from 1). */
export const workspaceStudyView = (t: Test, position: number) => ({
  uuid: t.id,
  title: t.title,
  type: t.type,
  productType: t.productType,
  orderedAt: isoTime(t.orderedAt),
  ...person(t),
  cursor: studyCursor(position),
});

export function studyView(t: Test, netPromoterScores: NetPromoterScore[]) {
  const groups = new Map((t.plan?.taskGroups ?? []).map((g) => [g.id, g]));
  return {
    title: t.title,
    sessionCount: t.sessionCount,
    ...person(t),
    testPlan: { shortTest: t.plan?.shortTest ?? false },
    tasks: (t.plan?.tasks ?? []).map(({ taskGroupId, ...task }, i) => {
      const group = taskGroupId === undefined ? undefined : groups.get(taskGroupId);
      return { position: i + 1, ...task, ...(group ? { taskGroup: { id: group.id, type: group.type } } : {}) };
    }),
    netPromoterScores,
  };
}

/** What only an import knows about a session, each left out when it was not imported. */
const importedFacts = (details: SessionDetails | null, fields: readonly ('formFactorUsed' | 'taskOrderingCondition' | 'notes')[]) =>
  Object.fromEntries(fields.flatMap((f) => (details?.[f] ? [[f, details[f]]] : [])));

export const completedSessionView = (cursors: SessionCursors, s: Session, test: Test, details: SessionDetails | null, media?: SessionMedia) => ({
  cursor: cursors.encode(s.testId, s),
  sessionId: legacyNumericId(s.sessionId),
  sessionUuid: s.sessionId,
  completedDateTime: isoTime(s.finishTime ?? s.startTime),
  state: 'completed',
  ...(details?.participant ? { participant: legacyParticipant(details.participant) } : {}),
  ...importedFacts(details, ['formFactorUsed', 'taskOrderingCondition']),
  answers: legacyAnswers(test.plan, details, media),
  startTime: isoTime(s.startTime),
  audienceId: s.audienceId,
  screenerResponses: details?.screenerResponses ?? [],
});

/** A session as GET session/{uuid} shows it, with what its store, its import and its video add. */
export const sessionView = (
  s: Session,
  test: Test,
  extra: { sequenceNumber: number; details: SessionDetails | null; securePoster: string | null },
) => ({
  uid: s.sessionId,
  sessionId: String(legacyNumericId(s.sessionId)),
  sequenceNumber: extra.sequenceNumber,
  title: test.title,
  stateUpdatedAt: isoTime(s.finishTime ?? s.startTime),
  ...(s.finishTime === null ? {} : { duration: (s.finishTime - s.startTime) / 1000 }),
  ...importedFacts(extra.details, ['notes']),
  ...(extra.securePoster ? { securePoster: extra.securePoster } : {}),
});
