import type { PlanTask, SessionTask } from './admin-api.js';

/**
 * A participant's answer as a person reads it, from the v3 view's shape (an object under the
 * key of the task's type: docs/QXSCORE.md and src/details/schemas.ts) and the plan's task (a
 * rating's scale and its end labels).
 */
export type ReadableAnswer =
  | { kind: 'none' }
  | { kind: 'skipped' }
  | { kind: 'done' }
  | { kind: 'text'; text: string }
  | { kind: 'success'; success: boolean }
  | { kind: 'rating'; value: number; min: number; max: number; lowerLabel?: string | undefined; upperLabel?: string | undefined }
  | { kind: 'nps'; value: number; band: NpsBand }
  | { kind: 'choices'; ranked: boolean; items: string[] }
  | { kind: 'rows'; rows: [row: string, choice: string][] };

export type NpsBand = 'detractor' | 'passive' | 'promoter';

/** NPS bands: 0-6 detractors, 7-8 passives, 9-10 promoters. */
export const npsBand = (value: number): NpsBand => (value >= 9 ? 'promoter' : value >= 7 ? 'passive' : 'detractor');

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);

/** A rating on the plan task's scale (1 to 5 unless the plan says otherwise). */
function rating(value: number, plan: PlanTask | undefined): ReadableAnswer {
  return { kind: 'rating', value, min: plan?.scaleMinimum ?? 1, max: plan?.scaleMaximum ?? 5, lowerLabel: plan?.lowerEndpoint, upperLabel: plan?.upperEndpoint };
}

export function readableAnswer(task: SessionTask, plan: PlanTask | undefined): ReadableAnswer {
  const response = task.response;
  if (!response) return { kind: 'none' };
  if (response.skipped) return { kind: 'skipped' };
  const entry = Object.entries(response.answer ?? {}).find(([, value]) => value !== null && value !== undefined);
  if (!entry) return { kind: 'done' };
  const [key, value] = entry as [string, Record<string, unknown>];
  switch (key) {
    case 'ratingScale':
      return rating(Number(value.value), plan);
    case 'nps':
      return { kind: 'nps', value: Number(value.value), band: npsBand(Number(value.value)) };
    case 'multipleChoice':
      return { kind: 'choices', ranked: false, items: strings(value.selected) };
    case 'rankOrder':
      return { kind: 'choices', ranked: true, items: strings(value.ranking) };
    case 'written':
      return { kind: 'text', text: String(value.text ?? '') };
    case 'url':
    case 'figma':
      return { kind: 'success', success: value.success === true };
    case 'matrix':
      return { kind: 'rows', rows: Object.entries((value.rows ?? {}) as Record<string, unknown>).map(([row, choice]) => [row, String(choice)]) };
    default:
      // BLANK and IMAGE answer with an empty object; an answer of a type this console does not know is shown as given.
      return Object.keys(value).length === 0 ? { kind: 'done' } : { kind: 'text', text: JSON.stringify(value) };
  }
}

/**
 * The plan's task for each of the view's tasks: the view lists the plan's tasks in plan order,
 * so they pair by position, checked by their text (a plan changed in between pairs nothing).
 */
export function planTasksOf(tasks: readonly SessionTask[], plan: readonly PlanTask[] | undefined): (PlanTask | undefined)[] {
  return tasks.map((task, i) => (plan?.[i]?.text === task.text ? plan[i] : undefined));
}
