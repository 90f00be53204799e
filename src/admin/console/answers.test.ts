import { describe, expect, it } from 'vitest';
import type { SessionTask } from './admin-api.js';
import { npsBand, planTasksOf, readableAnswer } from './answers.js';

const task = (type: string, answer: Record<string, unknown> | null, skipped = false): SessionTask => ({
  uuid: 'u',
  text: 'Q',
  type,
  response: { startTimeMs: 0, endTimeMs: 1, skipped, answer },
});

describe('readableAnswer: an answer of the v3 view as a person reads it', () => {
  it('a rating on its plan scale, with the scale\'s end labels', () => {
    expect(readableAnswer(task('RATING_SCALE', { ratingScale: { value: 4 } }), { text: 'Q', taskType: 'rating_scale', scaleMinimum: 0, scaleMaximum: 7, lowerEndpoint: 'Hard', upperEndpoint: 'Easy' })).toEqual({
      kind: 'rating',
      value: 4,
      min: 0,
      max: 7,
      lowerLabel: 'Hard',
      upperLabel: 'Easy',
    });
    expect(readableAnswer(task('RATING_SCALE', { ratingScale: { value: 2 } }), undefined)).toMatchObject({ kind: 'rating', value: 2, min: 1, max: 5 });
  });

  it('NPS as a number and its band', () => {
    expect([0, 6, 7, 8, 9, 10].map(npsBand)).toEqual(['detractor', 'detractor', 'passive', 'passive', 'promoter', 'promoter']);
    expect(readableAnswer(task('NPS', { nps: { value: 9 } }), undefined)).toEqual({ kind: 'nps', value: 9, band: 'promoter' });
  });

  it('choices as a list (ranked for a rank order), rows of a matrix, success, written text', () => {
    expect(readableAnswer(task('MULTIPLE_CHOICE', { multipleChoice: { selected: ['Card', 'Invoice'] } }), undefined)).toEqual({ kind: 'choices', ranked: false, items: ['Card', 'Invoice'] });
    expect(readableAnswer(task('RANK_ORDER', { rankOrder: { ranking: ['Mint', 'Vanilla'] } }), undefined)).toEqual({ kind: 'choices', ranked: true, items: ['Mint', 'Vanilla'] });
    expect(readableAnswer(task('MATRIX', { matrix: { rows: { Home: 'Good' } } }), undefined)).toEqual({ kind: 'rows', rows: [['Home', 'Good']] });
    expect(readableAnswer(task('URL', { url: { success: false } }), undefined)).toEqual({ kind: 'success', success: false });
    expect(readableAnswer(task('WRITTEN', { written: { text: 'Clear enough.' } }), undefined)).toEqual({ kind: 'text', text: 'Clear enough.' });
  });

  it('no response, a skipped task, an empty answer', () => {
    expect(readableAnswer({ uuid: 'u', text: 'Q', type: 'NPS', response: null }, undefined)).toEqual({ kind: 'none' });
    expect(readableAnswer(task('NPS', null, true), undefined)).toEqual({ kind: 'skipped' });
    expect(readableAnswer(task('BLANK', { blank: {} }), undefined)).toEqual({ kind: 'done' });
    expect(readableAnswer(task('IMAGE', null), undefined)).toEqual({ kind: 'done' });
  });

  it('pairs the view\'s tasks with the plan\'s by position, only where their texts agree', () => {
    const tasks = [task('NPS', null), { ...task('NPS', null), text: 'Other' }];
    const plan = [{ text: 'Q', taskType: 'nps' }, { text: 'Changed', taskType: 'nps' }];
    expect(planTasksOf(tasks, plan)).toEqual([plan[0], undefined]);
    expect(planTasksOf(tasks, undefined)).toEqual([undefined, undefined]);
  });
});
