import { describe, expect, it } from 'vitest';
import { MAX_CSV_RECORD_CHARS } from './csv-records.js';
import { MAX_JSON_DEPTH, nestsTooDeep } from './json-depth.js';
import { MAX_LINE_CHARS } from './parse-session-file.js';

const arrays = (depth: number, inside = '1') => '['.repeat(depth) + inside + ']'.repeat(depth);
const objects = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

describe('nestsTooDeep', () => {
  it('allows MAX_JSON_DEPTH levels of arrays or objects, and refuses one more', () => {
    for (const nest of [arrays, objects]) {
      expect(nestsTooDeep(JSON.parse(nest(MAX_JSON_DEPTH)))).toBe(false);
      expect(nestsTooDeep(JSON.parse(nest(MAX_JSON_DEPTH + 1)))).toBe(true);
    }
    expect(nestsTooDeep(JSON.parse(`{"ok":[{"x":1}],"deep":${arrays(MAX_JSON_DEPTH)}}`))).toBe(true);
    for (const flat of [null, 1, 'text', [], {}, [1, 'a', null], { a: 'b' }]) expect(nestsTooDeep(flat)).toBe(false);
  });

  it('is told without recursion, however deep the value', () => {
    expect(nestsTooDeep(JSON.parse(arrays(1_000_000)))).toBe(true);
  });

  // Depth is checked after parsing: this holds the engine to not recursing while it parses.
  it('JSON.parse reads the deepest value the longest accepted line or CSV record holds, without overflowing the stack', () => {
    const longest = Math.max(MAX_LINE_CHARS, MAX_CSV_RECORD_CHARS);
    expect(() => JSON.parse(arrays(Math.floor((longest - 1) / 2)))).not.toThrow();
    expect(() => JSON.parse(objects(Math.floor(longest / 6)))).not.toThrow();
  });
});
