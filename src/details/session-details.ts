import type { PlanTask, StoredDetails, TestPlan } from '../store/store.js';
import { isUuid, uuidKey } from '../store/uuid.js';
import { derivedTaskId, taskGroupUuid } from '../store/plan-ids.js';

/**
 * What a session contains beyond its summary: the participant, the answers to each task of the
 * test's plan, and the typed responses of its task groups. Imported with the session (the
 * `details` field of a session file's record), checked against the test's plan, stored as one
 * JSON document per session (session_details).
 */
export interface SessionDetails {
  participant: SessionParticipant | null;
  /** Only groups whose response is imported (a BALANCED_COMPARISON's sequence); QX_SCORE responses are computed. */
  taskGroups: TaskGroupAnswer[];
  tasks: TaskAnswer[];
  /**
   * What only an import knows about the session, as the Legacy v1 family shows it (absent from
   * documents stored before these fields existed: read as null or empty).
   */
  formFactorUsed?: string | null;
  taskOrderingCondition?: string | null;
  notes?: string | null;
  screenerResponses?: ScreenerResponse[];
}

export interface SessionParticipant {
  participantId: string | null;
  /** A display name or an email, as the real v1 `participant.name`; null when not imported. */
  name?: string | null;
  demographics: Demographic[];
}

/** A screener question the participant answered before the test, with their answers. */
export interface ScreenerResponse {
  question: string;
  response: string[];
}

/** The session-level fields a record's details may carry besides its answers, and their size bounds. */
const SESSION_FACTS = { formFactorUsed: 50, taskOrderingCondition: 100, notes: 5000 } as const;

export const DEMOGRAPHIC_TYPES = ['DEMOGRAPHIC_QUESTION_TYPE_SINGLE', 'DEMOGRAPHIC_QUESTION_TYPE_MULTIPLE', 'UNRECOGNIZED'] as const;

export interface Demographic {
  id: string | null;
  code: string | null;
  label: string | null;
  value: string | null;
  type: (typeof DEMOGRAPHIC_TYPES)[number] | null;
}

export interface TaskGroupAnswer {
  taskGroupId: string;
  sequence: string;
}

export interface TaskAnswer {
  /** The plan task's id (planTaskIds). */
  taskId: string;
  startTimeMs: number;
  endTimeMs: number;
  skipped: boolean;
  /** The typed answer (its shape depends on the task's type); null when skipped or when the type has none. */
  answer: Record<string, unknown> | null;
}

/** Plans are read once per change and kept (the access cache): their task ids are worked out once per plan. */
const taskIdsOfPlan = new WeakMap<TestPlan, string[]>();

/** Each plan task's id: its own, or one derived from the plan's id and its position (stable while the plan is). */
export function planTaskIds(plan: TestPlan): string[] {
  let ids = taskIdsOfPlan.get(plan);
  if (!ids) taskIdsOfPlan.set(plan, (ids = plan.tasks.map((task, i) => task.id ?? derivedTaskId(plan.id, i + 1))));
  return ids;
}

/**
 * One answer as scores read it: the task, whether it was skipped, and its number (a rating's
 * or NPS `value`; 1 or 0 for a navigational task's `success`), null for any other answer.
 */
export type ScoringRow = [taskId: string, skipped: 0 | 1, value: number | null];

/** The answers of `details` that a score can use: skipped tasks and numeric or success answers. */
export function scoringOf(details: SessionDetails): ScoringRow[] {
  const rows: ScoringRow[] = [];
  for (const t of details.tasks) {
    const a = t.answer;
    const value = typeof a?.value === 'number' ? a.value : typeof a?.success === 'boolean' ? (a.success ? 1 : 0) : null;
    if (t.skipped || value !== null) rows.push([t.taskId, t.skipped ? 1 : 0, value]);
  }
  return rows;
}

/** Details as the store keeps them: the document and its scoring projection. */
export const storedDetails = (details: SessionDetails): StoredDetails => ({ document: details, scoring: scoringOf(details) });

/** The highest scale point of a rating task (its two highest points are its "top-2 box"). */
export const scaleOf = (task: PlanTask): { min: number; max: number } => ({ min: task.scaleMinimum ?? 1, max: task.scaleMaximum ?? 5 });

const MAX_TEXT = 20_000;
const MAX_ITEMS = 500;

type Problems = string[];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const shown = (v: unknown): string => {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
};

/** Unknown fields named in one problem; an object may hold thousands, the message names the first few. */
const NAMED_FIELDS = 3;
/** Problems reported for one record's details; the rest are counted. */
const MAX_PROBLEMS = 20;

function onlyFields(value: Record<string, unknown>, allowed: readonly string[], where: string, problems: Problems): void {
  const unknown = Object.keys(value).filter((key) => !allowed.includes(key));
  if (unknown.length === 0) return;
  const named = unknown.slice(0, NAMED_FIELDS).map((key) => `${where}.${key.length > 40 ? `${key.slice(0, 37)}...` : key}`);
  const more = unknown.length - named.length;
  problems.push(
    `${named.join(', ')}${more > 0 ? ` and ${more} more` : ''} ${unknown.length === 1 ? 'is not a field' : 'are not fields'} (expected ${allowed.join(', ')})`,
  );
}

function nullableText(value: unknown, where: string, problems: Problems, max = 1000): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length > max) {
    problems.push(`${where} must be text of at most ${max} characters or null (got ${shown(value)})`);
    return null;
  }
  return value;
}

/**
 * Checks a record's `details` against the test's plan, field by field. Returns the details to
 * store, or the problems (each naming its field, e.g. `details.tasks[2].answer.value`).
 */
export function checkSessionDetails(raw: unknown, plan: TestPlan | null): { details: SessionDetails } | { problems: string[] } {
  const problems: Problems = [];
  if (!isObject(raw)) return { problems: [`details must be a JSON object with participant, taskGroups, tasks (got ${shown(raw)})`] };
  const answered = !isNothing(raw.tasks) || !isNothing(raw.taskGroups);
  // Answers are checked against the plan; what the session itself was like needs none.
  if (!plan && answered) return { problems: ['details give answers but the test has no plan to check them against (set one with `tests plan set`)'] };
  onlyFields(raw, ['participant', 'taskGroups', 'tasks', ...Object.keys(SESSION_FACTS), 'screenerResponses'], 'details', problems);
  const participant = checkParticipant(raw.participant, problems);
  const taskGroups = plan ? checkTaskGroups(raw.taskGroups, plan, problems) : [];
  const tasks = plan ? checkTasks(raw.tasks, plan, problems) : [];
  const facts = Object.fromEntries(
    Object.entries(SESSION_FACTS).map(([field, max]) => [field, nullableText(raw[field], `details.${field}`, problems, max)]),
  ) as Record<keyof typeof SESSION_FACTS, string | null>;
  const screenerResponses = checkScreenerResponses(raw.screenerResponses, problems);
  if (problems.length > MAX_PROBLEMS) return { problems: [...problems.slice(0, MAX_PROBLEMS), `and ${problems.length - MAX_PROBLEMS} more problems`] };
  return problems.length > 0 ? { problems } : { details: { participant, taskGroups, tasks, ...facts, screenerResponses } };
}

const isNothing = (v: unknown) => v === undefined || v === null;

/** At most 100 questions, each with at most 100 answers: a screener is a handful of questions. */
const MAX_SCREENER_ITEMS = 100;

function checkScreenerResponses(raw: unknown, problems: Problems): ScreenerResponse[] {
  if (isNothing(raw)) return [];
  const where = 'details.screenerResponses';
  if (!Array.isArray(raw) || raw.length > MAX_SCREENER_ITEMS) {
    problems.push(`${where} must be an array of at most ${MAX_SCREENER_ITEMS} objects with question, response`);
    return [];
  }
  const responses: ScreenerResponse[] = [];
  raw.forEach((r: unknown, i) => {
    const at = `${where}[${i}]`;
    if (!isObject(r)) {
      problems.push(`${at} must be an object with question, response`);
      return;
    }
    onlyFields(r, ['question', 'response'], at, problems);
    const question = nullableText(r.question, `${at}.question`, problems);
    if (question === null) problems.push(`${at}.question is required: the question as the participant read it`);
    const answers = r.response;
    const fine = Array.isArray(answers) && answers.length <= MAX_SCREENER_ITEMS && answers.every((a) => typeof a === 'string' && a.length <= 1000);
    if (!fine) problems.push(`${at}.response must be an array of at most ${MAX_SCREENER_ITEMS} answers, each text of at most 1000 characters`);
    if (question !== null && fine) responses.push({ question, response: answers as string[] });
  });
  return responses;
}

function checkParticipant(raw: unknown, problems: Problems): SessionParticipant | null {
  if (raw === undefined || raw === null) return null;
  const where = 'details.participant';
  if (!isObject(raw)) {
    problems.push(`${where} must be an object with participantId, name, demographics (got ${shown(raw)})`);
    return null;
  }
  onlyFields(raw, ['participantId', 'name', 'demographics'], where, problems);
  const name = nullableText(raw.name, `${where}.name`, problems, 200);
  let participantId: string | null = null;
  if (raw.participantId !== undefined && raw.participantId !== null) {
    if (typeof raw.participantId === 'string' && isUuid(raw.participantId)) participantId = uuidKey(raw.participantId);
    else problems.push(`${where}.participantId must be a UUID or null (got ${shown(raw.participantId)})`);
  }
  const demographics: Demographic[] = [];
  if (raw.demographics !== undefined) {
    if (!Array.isArray(raw.demographics) || raw.demographics.length > MAX_ITEMS) {
      problems.push(`${where}.demographics must be an array of at most ${MAX_ITEMS} objects`);
    } else {
      raw.demographics.forEach((d: unknown, i) => {
        const at = `${where}.demographics[${i}]`;
        if (!isObject(d)) {
          problems.push(`${at} must be an object with id, code, label, value, type`);
          return;
        }
        onlyFields(d, ['id', 'code', 'label', 'value', 'type'], at, problems);
        let type: Demographic['type'] = null;
        if (d.type !== undefined && d.type !== null) {
          if ((DEMOGRAPHIC_TYPES as readonly unknown[]).includes(d.type)) type = d.type as Demographic['type'];
          else problems.push(`${at}.type must be one of ${DEMOGRAPHIC_TYPES.join(', ')} or null (got ${shown(d.type)})`);
        }
        demographics.push({
          id: nullableText(d.id, `${at}.id`, problems, 100),
          code: nullableText(d.code, `${at}.code`, problems, 100),
          label: nullableText(d.label, `${at}.label`, problems),
          value: nullableText(d.value, `${at}.value`, problems),
          type,
        });
      });
    }
  }
  return { participantId, name, demographics };
}

function checkTaskGroups(raw: unknown, plan: TestPlan, problems: Problems): TaskGroupAnswer[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw) || raw.length > MAX_ITEMS) {
    problems.push(`details.taskGroups must be an array of at most ${MAX_ITEMS} objects`);
    return [];
  }
  const groups = new Map(plan.taskGroups.map((g) => [g.id, g]));
  const seen = new Set<string>();
  const answers: TaskGroupAnswer[] = [];
  raw.forEach((g: unknown, i) => {
    const at = `details.taskGroups[${i}]`;
    if (!isObject(g)) {
      problems.push(`${at} must be an object with taskGroupId, sequence`);
      return;
    }
    onlyFields(g, ['taskGroupId', 'sequence'], at, problems);
    // A group is named by its UUID, or by the readable id its plan file gave it (plan-ids.ts).
    const group = typeof g.taskGroupId === 'string' ? groups.get(taskGroupUuid(plan.id, g.taskGroupId)) : undefined;
    if (!group) {
      problems.push(`${at}.taskGroupId: the test's plan has no task group ${shown(g.taskGroupId)}`);
      return;
    }
    if (seen.has(group.id)) problems.push(`${at}.taskGroupId: task group ${shown(g.taskGroupId)} is answered twice`);
    seen.add(group.id);
    if (group.type !== 'BALANCED_COMPARISON') {
      problems.push(`${at}: task group ${shown(g.taskGroupId)} (${group.type}) takes no imported response` +
        (group.type === 'QX_SCORE' ? ' (its score is computed from the answers to its tasks)' : ''));
      return;
    }
    if (typeof g.sequence !== 'string' || !/^[A-Z]{1,26}$/.test(g.sequence)) {
      problems.push(`${at}.sequence must be the order the groups were seen in, 1-26 capital letters, e.g. "BA" (got ${shown(g.sequence)})`);
      return;
    }
    answers.push({ taskGroupId: group.id, sequence: g.sequence });
  });
  return answers;
}

function checkTasks(raw: unknown, plan: TestPlan, problems: Problems): TaskAnswer[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw) || raw.length > MAX_ITEMS) {
    problems.push(`details.tasks must be an array of at most ${MAX_ITEMS} objects`);
    return [];
  }
  const ids = planTaskIds(plan);
  const indexOfId = new Map(ids.map((id, i) => [id, i]));
  const seen = new Set<number>();
  const answers: TaskAnswer[] = [];
  raw.forEach((t: unknown, i) => {
    const at = `details.tasks[${i}]`;
    if (!isObject(t)) {
      problems.push(`${at} must be an object with taskId or position, startTimeMs, endTimeMs, skipped, answer`);
      return;
    }
    onlyFields(t, ['taskId', 'position', 'startTimeMs', 'endTimeMs', 'skipped', 'answer'], at, problems);
    let index: number | undefined;
    if (t.taskId !== undefined && t.position !== undefined) problems.push(`${at}: give taskId or position, not both`);
    else if (t.taskId !== undefined) {
      index = typeof t.taskId === 'string' ? indexOfId.get(t.taskId.toLowerCase()) : undefined;
      if (index === undefined) problems.push(`${at}.taskId: the test's plan has no task ${shown(t.taskId)}`);
    } else if (t.position !== undefined) {
      if (Number.isInteger(t.position) && (t.position as number) >= 1 && (t.position as number) <= plan.tasks.length) {
        index = (t.position as number) - 1;
      } else problems.push(`${at}.position: the test's plan has no task at position ${shown(t.position)} (it has ${plan.tasks.length})`);
    } else problems.push(`${at}: taskId or position is missing`);
    const start = t.startTimeMs;
    const end = t.endTimeMs;
    const okTime = (v: unknown) => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 864_000_000;
    if (!okTime(start)) problems.push(`${at}.startTimeMs must be whole milliseconds since the session started (got ${shown(start)})`);
    if (!okTime(end)) problems.push(`${at}.endTimeMs must be whole milliseconds since the session started (got ${shown(end)})`);
    if (okTime(start) && okTime(end) && (end as number) < (start as number)) problems.push(`${at}.endTimeMs is before startTimeMs`);
    if (typeof t.skipped !== 'boolean') problems.push(`${at}.skipped must be true or false (got ${shown(t.skipped)})`);
    if (index === undefined) return;
    if (seen.has(index)) problems.push(`${at}: task ${index + 1} of the plan is answered twice`);
    seen.add(index);
    const task = plan.tasks[index]!;
    let answer: Record<string, unknown> | null = null;
    if (t.skipped === true) {
      if (t.answer !== undefined && t.answer !== null) problems.push(`${at}.answer must be null for a skipped task`);
    } else {
      answer = checkAnswer(t.answer, task, `${at}.answer`, problems);
    }
    answers.push({ taskId: ids[index]!, startTimeMs: start as number, endTimeMs: end as number, skipped: t.skipped === true, answer });
  });
  return answers;
}

/** The answer shape each task type takes, for the messages. */
const ANSWER_SHAPES: Record<string, string> = {
  blank: '{} or null',
  image: '{} or null',
  rating_scale: '{"value": a point of the scale}',
  nps: '{"value": 0-10}',
  multiple_choice: '{"selected": [choices]}',
  rank_order: '{"ranking": [every choice, in order]}',
  launch_url: '{"success": true|false}',
  figma: '{"success": true|false}',
  written_response: '{"text": "..."}',
  verbal_response: '{"text": "..."}',
  matrix: '{"rows": {"<row>": "<choice>"}}',
};

function checkAnswer(raw: unknown, task: PlanTask, at: string, problems: Problems): Record<string, unknown> | null {
  const type = task.taskType;
  const expected = `a ${type} task's answer is ${ANSWER_SHAPES[type] ?? 'an object'}`;
  if (raw === undefined || raw === null) {
    if (type === 'blank' || type === 'image') return null;
    problems.push(`${at} is missing (${expected}; null only when skipped)`);
    return null;
  }
  if (!isObject(raw)) {
    problems.push(`${at}: ${expected} (got ${shown(raw)})`);
    return null;
  }
  const before = problems.length;
  const bad = (field: string, why: string) => problems.push(`${at}.${field} ${why} (${expected})`);
  switch (type) {
    case 'blank':
    case 'image':
      onlyFields(raw, [], at, problems);
      return problems.length > before ? null : {};
    case 'rating_scale':
    case 'nps': {
      onlyFields(raw, ['value'], at, problems);
      const { min, max } = type === 'nps' ? { min: 0, max: 10 } : scaleOf(task);
      if (!Number.isInteger(raw.value) || (raw.value as number) < min || (raw.value as number) > max) {
        bad('value', `must be a whole number from ${min} to ${max} (got ${shown(raw.value)})`);
      }
      return problems.length > before ? null : { value: raw.value };
    }
    case 'multiple_choice': {
      onlyFields(raw, ['selected'], at, problems);
      const choices = task.choices ?? [];
      const selected = raw.selected;
      if (!Array.isArray(selected) || selected.length === 0) bad('selected', 'must be a non-empty array of the choices');
      else {
        if (selected.length > 1 && !task.multipleAnswers) bad('selected', 'holds one choice: the task takes a single answer');
        selected.forEach((c: unknown, i) => {
          if (!choices.includes(c as string)) bad(`selected[${i}]`, `is not one of the task's choices (got ${shown(c)})`);
        });
        if (new Set(selected).size !== selected.length) bad('selected', 'names a choice twice');
      }
      return problems.length > before ? null : { selected };
    }
    case 'rank_order': {
      onlyFields(raw, ['ranking'], at, problems);
      const choices = task.choices ?? [];
      const ranking = raw.ranking;
      if (!Array.isArray(ranking) || ranking.length !== choices.length || !choices.every((c) => ranking.includes(c))) {
        bad('ranking', `must list each of the task's ${choices.length} choices once, best first`);
      }
      return problems.length > before ? null : { ranking };
    }
    case 'launch_url':
    case 'figma':
      onlyFields(raw, ['success'], at, problems);
      if (typeof raw.success !== 'boolean') bad('success', `must be true or false: whether the participant completed the task (got ${shown(raw.success)})`);
      return problems.length > before ? null : { success: raw.success };
    case 'written_response':
    case 'verbal_response':
      onlyFields(raw, ['text'], at, problems);
      if (typeof raw.text !== 'string' || raw.text.length > MAX_TEXT) bad('text', `must be text of at most ${MAX_TEXT} characters`);
      return problems.length > before ? null : { text: raw.text };
    case 'matrix': {
      onlyFields(raw, ['rows'], at, problems);
      const rows = raw.rows;
      if (!isObject(rows)) bad('rows', 'must be an object from row to choice');
      else {
        for (const [row, choice] of Object.entries(rows)) {
          if (!(task.rows ?? []).includes(row)) bad(`rows`, `names a row the task does not have (${shown(row)})`);
          else if (!(task.choices ?? []).includes(choice as string)) bad(`rows.${row}`, `is not one of the task's choices (got ${shown(choice)})`);
        }
      }
      return problems.length > before ? null : { rows };
    }
    default:
      problems.push(`${at}: tasks of type ${type} take no answer`);
      return null;
  }
}
