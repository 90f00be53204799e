import { describe, expect, it } from 'vitest';
import { parseRange } from './byte-ranges.js';

describe('parseRange (RFC 9110 §14)', () => {
  const size = 1000;
  it.each([
    ['bytes=0-99', { start: 0, end: 99 }],
    ['bytes=500-', { start: 500, end: 999 }],
    ['bytes=-100', { start: 900, end: 999 }],
    ['bytes=-5000', { start: 0, end: 999 }],
    ['bytes=900-5000', { start: 900, end: 999 }],
    ['bytes=999-999', { start: 999, end: 999 }],
    ['BYTES=10-19', { start: 10, end: 19 }],
  ])('%s', (header, range) => {
    expect(parseRange(header, size)).toEqual({ kind: 'range', range });
  });

  it.each(['bytes=1000-', 'bytes=5000-6000', 'bytes=-0'])('%s cannot be satisfied', (header) => {
    expect(parseRange(header, size)).toEqual({ kind: 'unsatisfiable' });
  });

  it.each([undefined, 'bytes=0-1,5-6', 'items=0-5', 'bytes=', 'bytes=-', 'bytes=20-10', 'bytes=abc'])('%s: the whole file', (header) => {
    expect(parseRange(header, size)).toEqual({ kind: 'none' });
  });

  it('nothing in an empty file can be ranged', () => {
    expect(parseRange('bytes=0-', 0)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=-1', 0)).toEqual({ kind: 'unsatisfiable' });
  });
});
