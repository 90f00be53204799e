import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Timestamp, Uuid } from '../results/schemas.js';
import { EXTENSION } from '../docs/extension.js';
import { PRODUCT_TYPES } from '../store/store.js';

/** Sessions per page of the completed-sessions listing, as in the real service. */
export const COMPLETED_PAGE_SIZE = 50;

export const WorkspaceParams = Type.Object({ workspaceUuid: Uuid('A workspace where the caller is a member.') });
export type WorkspaceParams = Static<typeof WorkspaceParams>;
export const StudyParams = Type.Object({ studyUuid: Uuid('A test in a workspace where the caller is a member.') });
export type StudyParams = Static<typeof StudyParams>;
export const SessionParams = Type.Object({ sessionUuid: Uuid('A session of a test in a workspace where the caller is a member.') });
export type SessionParams = Static<typeof SessionParams>;

const Cursor = (description: string) => Type.String({ minLength: 1, maxLength: 300, description });
export const CompletedSessionsQuery = Type.Object({
  after: Type.Optional(Cursor(`A session's \`cursor\`: the ${COMPLETED_PAGE_SIZE} completed sessions after it (older).`)),
  before: Type.Optional(Cursor(`A session's \`cursor\`: the ${COMPLETED_PAGE_SIZE} completed sessions before it (newer).`)),
});
export type CompletedSessionsQuery = Static<typeof CompletedSessionsQuery>;
/** Tests per page of a workspace's listing, as in the real service. */
export const STUDIES_PAGE_SIZE = 50;
export const StudiesQuery = Type.Object({
  after: Type.Optional(Cursor(`A test's \`cursor\`: the ${STUDIES_PAGE_SIZE} tests after it.`)),
  before: Type.Optional(Cursor(`A test's \`cursor\`: the ${STUDIES_PAGE_SIZE} tests before it.`)),
});
export type StudiesQuery = Static<typeof StudiesQuery>;

const Person = Type.Object(
  { email: Type.String(), name: Type.Optional(Type.String()) },
  { description: 'Who ordered the test; absent when not recorded.' },
);

export const Workspace = Type.Object(
  {
    id: Type.String({ description: 'The workspace id (here the same as its uuid).' }),
    name: Type.String(),
    uuid: Type.String({ format: 'uuid' }),
  },
  { title: 'Workspace' },
);

export const WorkspaceStudy = Type.Object(
  {
    uuid: Type.String({ format: 'uuid', description: 'The test id: the testId of the v2 API.' }),
    title: Type.String(),
    type: Type.String({ description: 'Delivery format; STUDYV2 for every test here (served by the v2 API).', examples: ['STUDYV2'] }),
    productType: Type.String({ description: `Kind of research: ${PRODUCT_TYPES.join(', ')}.`, examples: ['THINK_OUT_LOUD'] }),
    orderedAt: Timestamp('When the test was ordered.'),
    orderedBy: Type.Optional(Person),
    cursor: Type.String({ description: 'Position of this entry in the listing.' }),
  },
  { title: 'WorkspaceStudy' },
);

export const StudyTaskNode = Type.Object(
  {
    position: Type.Integer({ description: 'From 1, in plan order.' }),
    text: Type.String(),
    taskType: Type.String({ examples: ['multiple_choice'] }),
    taskGroup: Type.Optional(Type.Object({ id: Type.String(), type: Type.String() })),
    grouping: Type.Optional(Type.String()),
    choices: Type.Optional(Type.Array(Type.String())),
    multipleAnswers: Type.Optional(Type.Boolean()),
    scaleMinimum: Type.Optional(Type.Integer()),
    scaleMaximum: Type.Optional(Type.Integer()),
    lowerEndpoint: Type.Optional(Type.String()),
    upperEndpoint: Type.Optional(Type.String()),
    launchUrl: Type.Optional(Type.String()),
    blurPII: Type.Optional(Type.Boolean()),
    resultType: Type.Optional(Type.String()),
  },
  { title: 'StudyTaskNode' },
);

export const StudyNetPromoterScore = Type.Object(
  {
    score: Type.Integer({
      description: 'The Net Promoter Score, -100 to 100: `promoterPercentage` minus `detractorPercentage` (of the rounded percentages, so the three always agree).',
      examples: [38],
    }),
    promoterPercentage: Type.Integer({ description: 'Share of the respondents who answered 9 or 10, in percent rounded to the nearest whole (halves up).', examples: [56] }),
    passivePercentage: Type.Integer({ description: 'Share who answered 7 or 8, rounded alike.', examples: [26] }),
    detractorPercentage: Type.Integer({
      description: 'Share who answered 0 to 6, rounded alike (each percentage is rounded on its own, so the three may add up to 99 or 101).',
      examples: [18],
    }),
    position: Type.Integer({ description: 'Extension (not in the original contract): the NPS task this result is for, as its `position` in `tasks`.', ...EXTENSION }),
    respondents: Type.Integer({ description: 'Extension (not in the original contract): how many completed sessions answered the task (skips do not count).', ...EXTENSION }),
  },
  {
    title: 'StudyNetPromoterScore',
    description: 'The Net Promoter Score of one NPS task, over the answers of the study\'s completed sessions that have imported details.',
  },
);

export const Study = Type.Object(
  {
    title: Type.String(),
    sessionCount: Type.Integer({ description: 'Sessions of the test, whatever their status.' }),
    orderedBy: Type.Optional(Person),
    testPlan: Type.Object({ shortTest: Type.Boolean() }, { description: 'Settings of the test plan (shortTest false without a plan).' }),
    tasks: Type.Array(StudyTaskNode, { description: 'The test plan tasks in order; empty without a plan.' }),
    netPromoterScores: Type.Array(StudyNetPromoterScore, {
      description: 'One result per NPS task of the plan that has at least one answer, in plan order; empty without such a task.',
    }),
  },
  { title: 'Study' },
);

const SessionAnswer = Type.Object(
  {
    time: Type.Integer({ description: 'When the answer began, in whole seconds from the session start (rounded down: the second a player seeks to).', examples: [0] }),
    duration: Type.Integer({ description: 'How long the answer took, in seconds rounded to the nearest whole (halves up).', examples: [51] }),
    type: Type.String({ description: "The task's type, as `taskType` in the study's `tasks`.", examples: ['multiple_choice'] }),
    responses: Type.Array(Type.String(), {
      description:
        'The answer as text: the chosen choices (multiple_choice), the choices best first (rank_order), the number ' +
        '(rating_scale, nps), `success` or `failure` (launch_url, figma), the text (written_response, verbal_response), ' +
        '`row: choice` per answered row in row order (matrix); empty for a blank or image task and for a skipped task.',
      examples: [['Poland', 'Singapore']],
    }),
    position: Type.Integer({ description: "Extension (not in the original contract): the task's `position` in the study's `tasks`.", ...EXTENSION }),
    skipped: Type.Boolean({ description: 'Extension (not in the original contract): whether the participant skipped the task.', ...EXTENSION }),
  },
  { title: 'SessionAnswer' },
);

const CompletedSession = Type.Object(
  {
    cursor: Type.String({ description: 'Pass as `after` (or `before`) to page on from this session.' }),
    sessionUuid: Type.String({ format: 'uuid' }),
    completedDateTime: Timestamp('When the participant finished.'),
    state: Type.String({ examples: ['completed'] }),
    answers: Type.Array(SessionAnswer, {
      description:
        'The imported answers, one per task the session answered or skipped, in plan order (`position` names the task). ' +
        'Empty for a session imported without details. `transcript` and `url` are left out: transcripts and recordings are ' +
        'served per session (the v2 transcript and video operations), not cut per answer.',
    }),
    startTime: Timestamp('Extension (not in the original contract): when the session started, as in the v2 listing.'),
    audienceId: Nullable<string>('string', {
      format: 'uuid',
      description: 'Extension (not in the original contract): the audience, as in the v2 listing; null when none.',
    }),
    screenerResponses: Type.Array(Type.Object({}), { description: 'Empty until screener responses are stored (a later issue).' }),
  },
  { title: 'CompletedSession' },
);

export const CompletedSessions = Type.Object(
  {
    completedSessionCount: Type.Integer({ description: 'COMPLETE sessions of the test across all pages.' }),
    sessions: Type.Array(CompletedSession, {
      description: `Up to ${COMPLETED_PAGE_SIZE}, newest first by start time (ties by session id); fewer on the last page.`,
    }),
  },
  { title: 'CompletedSessions' },
);

export const Session = Type.Object(
  {
    uid: Type.String({ format: 'uuid' }),
    title: Type.String({ description: 'The title of its test.' }),
    stateUpdatedAt: Timestamp('When the session finished, or started if it has not.'),
    duration: Type.Optional(Type.Number({ description: 'Seconds from start to finish; absent while unfinished.' })),
  },
  { title: 'Session' },
);

export const HttpErrorResponse = Type.Object(
  {
    errorCode: Type.String({ description: 'The HTTP status as a word, e.g. NOT_FOUND.', examples: ['BAD_REQUEST'] }),
    errorMessage: Type.String({ description: 'What was wrong.' }),
  },
  { title: 'HttpErrorResponse' },
);
