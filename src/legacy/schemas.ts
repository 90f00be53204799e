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
    id: Type.String({
      pattern: '^[1-9][0-9]*$',
      description: 'The workspace\'s numeric id, as text: derived from its uuid, so the same across restarts and databases.',
      examples: ['12345'],
    }),
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
    transcript: Type.Optional(
      Type.String({
        description:
          "What was said during the answer: the plain text of the session transcript's cues that overlap its time window " +
          '(voice tags and markup dropped), in order; empty when nobody spoke then. Left out when the session has no transcript.',
        examples: ['I am looking for pricing information before I continue.'],
      }),
    ),
    url: Type.Optional(
      Type.String({
        format: 'uri',
        description:
          "The session's video from the answer's start: the signed one-hour link of the v2 videoDownloadUrl with a media " +
          'fragment `#t=<time>` (players start there). Left out when the session has no video.',
      }),
    ),
    position: Type.Integer({ description: "Extension (not in the original contract): the task's `position` in the study's `tasks`.", ...EXTENSION }),
    skipped: Type.Boolean({ description: 'Extension (not in the original contract): whether the participant skipped the task.', ...EXTENSION }),
  },
  { title: 'SessionAnswer' },
);

/** Text only an import knows (see docs/CLI.md, the `details` of a session file), left out when not imported. */
const Imported = (description: string, examples: string[]) => Type.Optional(Type.String({ description: `${description} Left out when the import did not give it.`, examples }));

/** The real v1 demographics, each read from the v3 demographic of the same code (src/legacy/participant.ts). */
const V1Demographics = Type.Object(
  {
    age: Type.Optional(Type.Integer({ minimum: 0, description: 'Whole years (code AGE, when its value is a whole number).' })),
    children: Type.Optional(Type.Array(Type.String(), { description: 'Code CHILDREN, split at its commas.' })),
    companySize: Type.Optional(Type.String({ description: 'Code COMPANY_SIZE.' })),
    country: Type.Optional(Type.String({ description: 'Code COUNTRY.' })),
    employmentStatus: Type.Optional(Type.String({ description: 'Code EMPLOYMENT_STATUS.' })),
    gender: Type.Optional(Type.String({ description: 'Code GENDER.' })),
    income: Type.Optional(Type.String({ description: 'Code INCOME.' })),
    industry: Type.Optional(Type.String({ description: 'Code INDUSTRY.' })),
    jobFunction: Type.Optional(Type.String({ description: 'Code JOB_FUNCTION.' })),
    seniority: Type.Optional(Type.String({ description: 'Code SENIORITY.' })),
    socialNetworks: Type.Optional(Type.Array(Type.String(), { description: 'Code SOCIAL_NETWORKS, split at its commas.' })),
    webExpertise: Type.Optional(Type.String({ description: 'Code WEB_EXPERTISE.' })),
  },
  { description: 'The imported demographics under the codes above; one not imported is left out.' },
);

const CompletedSession = Type.Object(
  {
    cursor: Type.String({ description: 'Pass as `after` (or `before`) to page on from this session.' }),
    sessionId: Type.Integer({
      minimum: 1,
      description: "The session's numeric id: derived from its uuid, so the same on every restart, process and database.",
      examples: [15280],
    }),
    sessionUuid: Type.String({ format: 'uuid' }),
    completedDateTime: Timestamp('When the participant finished.'),
    state: Type.String({ examples: ['completed'] }),
    participant: Type.Optional(
      Type.Object(
        {
          name: Type.Optional(Type.String({ description: 'A display name or an email, as imported (`details.participant.name`).' })),
          demographics: V1Demographics,
        },
        { description: 'Who took the session; left out when no participant was imported.' },
      ),
    ),
    formFactorUsed: Imported('The device the participant used, as imported (`details.formFactorUsed`).', ['Computer']),
    taskOrderingCondition: Imported('The task order the participant got, as imported (`details.taskOrderingCondition`).', ['default']),
    answers: Type.Array(SessionAnswer, {
      description:
        'The imported answers, one per task the session answered or skipped, in plan order (`position` names the task), ' +
        'each with what was said during it and a link to the video at its start when the session has a transcript and a video. ' +
        'Empty for a session imported without details.',
    }),
    startTime: Timestamp('Extension (not in the original contract): when the session started, as in the v2 listing.'),
    audienceId: Nullable<string>('string', {
      format: 'uuid',
      description: 'Extension (not in the original contract): the audience, as in the v2 listing; null when none.',
    }),
    screenerResponses: Type.Array(
      Type.Object({
        question: Type.String({ description: 'The screener question as the participant read it.' }),
        response: Type.Array(Type.String(), { description: 'Their answers.' }),
      }),
      { description: 'The screener questions and answers imported with the session (`details.screenerResponses`); empty when none.' },
    ),
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
    sessionId: Type.String({
      pattern: '^[1-9][0-9]*$',
      description: "The session's numeric id as text (the completed-sessions listing's `sessionId`, there a number).",
      examples: ['15280'],
    }),
    sequenceNumber: Type.Integer({ minimum: 1, description: "The session's place among its test's sessions (every status) in the order they started, from 1." }),
    title: Type.String({ description: 'The title of its test.' }),
    stateUpdatedAt: Timestamp('When the session finished, or started if it has not.'),
    duration: Type.Optional(Type.Number({ description: 'Seconds from start to finish; absent while unfinished.' })),
    notes: Imported('Notes on the session, as imported (`details.notes`).', ['Participant hesitated at checkout.']),
    securePoster: Type.Optional(
      Type.String({
        format: 'uri',
        description: "A frame of the session's video taken by ffmpeg at import, behind a signed one-hour link; left out without a video (or a poster).",
      }),
    ),
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
