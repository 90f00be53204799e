import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { EXTENSION } from '../docs/extension.js';
import { Nullable, Uuid } from '../results/schemas.js';

// Component names (titles), fields, types and enums are the real Results document's
// (SessionResultsV3ResponseDto, QxScoreResponseApi), so clients generated from either agree.

export const SessionIdParams = Type.Object({ sessionId: Uuid('The session.') });
export type SessionIdParams = Static<typeof SessionIdParams>;
export const TestIdParams = Type.Object({ testId: Uuid('The test (an interaction test for a QXscore).') });
export type TestIdParams = Static<typeof TestIdParams>;

const NullableEnum = (values: readonly string[], description: string) => Nullable<string>('string', { enum: [...values, null], description });
/** A schema that may also be null, kept as a named component reference where the generator allows. */
const OrNull = <T extends TSchema>(schema: T, description: string) => Type.Union([schema, Type.Null()], { description });

export const DemographicInfo = Type.Object(
  {
    id: Nullable<string>('string', { description: 'The demographic question.' }),
    code: Nullable<string>('string', { description: 'The question\'s category, e.g. GENDER or AGE_GROUP.', examples: ['GENDER'] }),
    label: Nullable<string>('string', { description: 'The question as the participant read it.' }),
    value: Nullable<string>('string', { description: 'The answer; several are separated by commas.' }),
    type: NullableEnum(['DEMOGRAPHIC_QUESTION_TYPE_SINGLE', 'DEMOGRAPHIC_QUESTION_TYPE_MULTIPLE', 'UNRECOGNIZED'], 'Single or multiple choice.'),
  },
  { title: 'DemographicInfoDto' },
);

export const SessionParticipant = Type.Object(
  {
    participantId: Nullable<string>('string', { format: 'uuid' }),
    demographicsInfo: Type.Array(DemographicInfo, { description: 'Demographic questions and their answers.' }),
    name: Type.Optional(
      Nullable<string>('string', { description: "Extension: the participant's display name or email, as imported (the Legacy v1 participant.name); null when not imported.", ...EXTENSION }),
    ),
  },
  { title: 'SessionParticipantDto' },
);

export const TaskGroupResponseQxScore = Type.Object(
  { score: Type.Number({ minimum: 0, maximum: 100, description: "The participant's QXscore (0-100), computed from their answers to the group's tasks." }) },
  { title: 'TaskGroupResponseQxScoreDto' },
);
export const TaskGroupResponseBalancedComparison = Type.Object(
  { sequence: Type.String({ description: 'The order the participant saw the compared groups in.', examples: ['BA'] }) },
  { title: 'TaskGroupResponseBalancedComparisonDto' },
);

export const TASK_GROUP_TYPES = ['QX_SCORE', 'BALANCED_COMPARISON', 'UNRECOGNIZED'] as const;
export const TaskGroupItem = Type.Object(
  {
    uuid: Type.String({ format: 'uuid', description: 'The task group (its id in the test plan).' }),
    type: Type.Unsafe<(typeof TASK_GROUP_TYPES)[number]>({ type: 'string', enum: [...TASK_GROUP_TYPES], description: "The task group's type; others are UNRECOGNIZED." }),
    response: Type.Union(
      [TaskGroupResponseQxScore, TaskGroupResponseBalancedComparison, Type.Null()],
      {
        description:
          'By type: QX_SCORE → { score }, BALANCED_COMPARISON → { sequence }; null when there is none (or it cannot be computed).',
      },
    ),
  },
  { title: 'TaskGroupItemDto' },
);

/** A fact only a session's import knows, as the Legacy (v1) family shows it: an extension here. */
const ImportedFact = (description: string) =>
  Type.Optional(Nullable<string>('string', { description: `Extension (the Legacy v1 session's field): ${description}; null when not imported.`, ...EXTENSION }));

/** What a session carries beyond its answers (details.formFactorUsed, ... of the import), so an export with details loses nothing. */
const IMPORTED_FACTS = {
  formFactorUsed: ImportedFact('the device the participant used, e.g. DESKTOP'),
  taskOrderingCondition: ImportedFact('the order the participant got the tasks in'),
  notes: ImportedFact("the researcher's notes on the session"),
  screenerResponses: Type.Optional(
    Type.Array(
      Type.Object(
        {
          question: Type.String({ description: 'The screener question as the participant read it.' }),
          response: Type.Array(Type.String(), { description: 'Their answers.' }),
        },
        { title: 'ScreenerResponseDto' },
      ),
      { description: "Extension (the Legacy v1 completed session's field): the screener questions and answers imported with the session; empty when none.", ...EXTENSION },
    ),
  ),
};

/** One answer shape, under its task type's key; null or left out under the others (as the real document allows). */
const AnswerPart = (title: string, properties: Record<string, TSchema>, description: string) =>
  Type.Optional(Type.Union([Type.Object(properties, { title, additionalProperties: false }), Type.Null()], { description }));
const Success = { success: Type.Boolean({ description: 'Whether the participant completed the task.' }) };
const ANSWER_PARTS = {
  blank: AnswerPart('BlankAnswer', {}, 'BLANK: an empty object.'),
  ratingScale: AnswerPart('RatingScaleAnswer', { value: Type.Integer({ description: 'A point of the scale.' }) }, 'RATING_SCALE.'),
  multipleChoice: AnswerPart(
    'MultipleChoiceAnswer',
    { selected: Type.Array(Type.String(), { description: 'The choices picked (one unless the task takes several).' }) },
    'MULTIPLE_CHOICE.',
  ),
  image: AnswerPart('ImageAnswer', {}, 'IMAGE: an empty object.'),
  nps: AnswerPart('NpsAnswer', { value: Type.Integer({ minimum: 0, maximum: 10 }) }, 'NPS: 0-10.'),
  url: AnswerPart('UrlAnswer', Success, 'URL (a navigational task).'),
  rankOrder: AnswerPart('RankOrderAnswer', { ranking: Type.Array(Type.String(), { description: 'Every choice, first ranked first.' }) }, 'RANK_ORDER.'),
  written: AnswerPart('WrittenAnswer', { text: Type.String() }, 'WRITTEN (written or spoken responses).'),
  figma: AnswerPart('FigmaAnswer', Success, 'FIGMA (a navigational task on a prototype).'),
  matrix: AnswerPart(
    'MatrixAnswer',
    { rows: Type.Record(Type.String(), Type.String(), { description: 'The choice given for each row.' }) },
    'MATRIX.',
  ),
};

export const TASK_TYPES_V3 = ['BLANK', 'RATING_SCALE', 'MULTIPLE_CHOICE', 'IMAGE', 'NPS', 'URL', 'RANK_ORDER', 'WRITTEN', 'FIGMA', 'MATRIX', 'UNRECOGNIZED'] as const;
/**
 * The task types the help centre lists for GET /api/v2/sessionResults/{sessionId} ("Accessing
 * Detailed Session Responses"): the v3 ones, VERBAL for a spoken response and SKIPPED for a task
 * the participant skipped (by logic or by choice).
 */
export const TASK_TYPES_V2 = [...TASK_TYPES_V3.slice(0, -1), 'VERBAL', 'SKIPPED', 'UNRECOGNIZED'] as const;

/**
 * The details body in one vocabulary: the real v3 document's (its component names, so generated
 * clients agree), or the help centre's v2 one (VERBAL and SKIPPED, a spoken answer under
 * `verbal`), whose components carry a V2 suffix.
 */
function sessionResultsSchema<Types extends readonly string[]>(types: Types, v2: boolean) {
  const named = (title: string) => (v2 ? title.replace(/Dto$/, 'V2Dto') : title);
  const answer = Type.Object(
    v2 ? { ...ANSWER_PARTS, verbal: AnswerPart('VerbalAnswer', { text: Type.String({ description: 'What the participant said.' }) }, 'VERBAL (a spoken response).') } : ANSWER_PARTS,
    {
      title: named('TaskAnswerDto'),
      description: "The answer, under the key of the task's type (the other keys are left out).",
      additionalProperties: false,
    },
  );
  const responseData = Type.Object(
    {
      startTimeMs: Type.Number({ description: 'When the task started, in ms since the session started.' }),
      endTimeMs: Type.Number({ description: 'When the task ended, in ms since the session started.' }),
      skipped: Type.Boolean(),
      answer: OrNull(answer, 'null when skipped, or for a task type without an answer given.'),
    },
    { title: named('TaskResponseDataDto') },
  );
  const task = Type.Object(
    {
      uuid: Type.String({ format: 'uuid', description: 'The task.' }),
      text: Type.String({ description: "The task's prompt." }),
      type: Type.Unsafe<Types[number]>({
        type: 'string',
        enum: [...types],
        description: v2
          ? "The task's type; SKIPPED when this participant skipped it, VERBAL for a spoken response."
          : "The task's type (verbal and written responses are both WRITTEN).",
      }),
      response: OrNull(responseData, 'null when the session holds no response to the task.'),
    },
    { title: named('TaskItemDto') },
  );
  return Type.Object(
    {
      sessionId: Nullable<string>('string', { format: 'uuid' }),
      audienceId: Nullable<string>('string', { format: 'uuid' }),
      testPlanId: Nullable<string>('string', { format: 'uuid', description: 'The test plan; null when the test has none.' }),
      sessionParticipant: OrNull(SessionParticipant, 'null when no participant was imported for the session.'),
      taskGroups: Type.Array(TaskGroupItem, { description: 'Every task group of the test plan, in plan order.' }),
      tasks: Type.Array(task, { description: 'Every task of the test plan, in plan order.' }),
      ...IMPORTED_FACTS,
    },
    { title: v2 ? 'SessionResultsV2ResponseDto' : 'SessionResultsV3ResponseDto' },
  );
}

export const SessionResultsV3Response = sessionResultsSchema(TASK_TYPES_V3, false);
export type SessionResultsV3Response = Static<typeof SessionResultsV3Response>;
export const SessionResultsV2Response = sessionResultsSchema(TASK_TYPES_V2, true);
export type SessionResultsV2Response = Static<typeof SessionResultsV2Response>;
/** A details body in either vocabulary (the view builds both). */
export type SessionResultsBody = SessionResultsV3Response | SessionResultsV2Response;

const Percent = (description: string) => Type.Number({ minimum: 0, maximum: 100, description });
const NullablePercent = (description: string) => Nullable<number>('number', { minimum: 0, maximum: 100, description });

export const QxScoreComponents = Type.Object(
  {
    behavioral: NullablePercent('Mean task success (%) over the group\'s navigational tasks; null when it has none.'),
    attitudinal: Percent('Mean of the usability, trust, appearance and loyalty values.'),
  },
  { title: 'QxScoreComponentsDto' },
);

export const QxScoreValues = Type.Object(
  {
    behavioral: Nullable<number[]>('array', {
      items: { type: 'number' },
      description: 'Task success (%) of each navigational task, in plan order; null when the group has none.',
    }),
    usability: Percent('Top-2-box share (%) of the usability answers.'),
    trust: Percent('Top-2-box share (%) of the trust answers.'),
    appearance: Percent('Top-2-box share (%) of the appearance answers.'),
    loyalty: Percent('Top-2-box share (%) of the loyalty answers (9-10 for NPS).'),
  },
  { title: 'QxScoreValuesDto' },
);

export const QxScoreItem = Type.Object(
  {
    taskGroupId: Type.String({ format: 'uuid', description: 'The QX_SCORE task group (its id in the test plan).' }),
    label: Type.String({ examples: ['QXscore 1'] }),
    qxScore: NullablePercent('(behavioral + attitudinal) / 2; null when the behavioral component is null or no session answered.'),
    components: QxScoreComponents,
    values: QxScoreValues,
  },
  { title: 'QxScoreItemDto' },
);

export const QxScoreResponse = Type.Object(
  {
    testId: Type.String({ format: 'uuid' }),
    qxScores: Type.Array(QxScoreItem, { description: 'One per QX_SCORE task group of the plan, in plan order.' }),
    meta: Type.Object(
      {
        totalQxTasks: Type.Integer({ description: 'QX_SCORE task groups in the plan.' }),
        completes: Type.Integer({ description: 'Completed sessions whose details were imported (those the scores come from).' }),
      },
      { title: 'QxScoreMetaDto' },
    ),
  },
  { title: 'QxScoreResponseApi' },
);
export type QxScoreResponse = Static<typeof QxScoreResponse>;
