/**
 * How deeply JSON that users bring (a session file's records and their details, test plans)
 * may nest arrays and objects. What we read nests 6 levels at most (a record, its details,
 * tasks, a task, its answer, a matrix's rows); anything far deeper is refused before any
 * recursive walk of it (JSON.stringify for a message, a validator) could overflow the stack.
 */
export const MAX_JSON_DEPTH = 32;

/** The problem reported for such a value, naming what nests (e.g. "the line", "details"). */
export const tooDeepProblem = (what: string): string => `${what} nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`;

/**
 * Whether `value` nests arrays and objects more than `MAX_JSON_DEPTH` levels deep (a value
 * that is neither is level 0; `{"a": [1]}` is level 2). Found with an explicit stack, not
 * recursion, and stopping at the first level too deep: it visits each member of the value at
 * most once, and the value is bounded by the text it was parsed from.
 *
 * Depth is checked after parsing: JSON.parse (V8) does not recurse, so even the deepest value
 * the longest accepted line can hold parses (json-depth.test.ts holds it to that).
 */
export function nestsTooDeep(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const stack: [object, number][] = [[value, 1]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [container, depth] = next;
    for (const member of Array.isArray(container) ? container : Object.values(container)) {
      if (typeof member !== 'object' || member === null) continue;
      if (depth === MAX_JSON_DEPTH) return true;
      stack.push([member, depth + 1]);
    }
  }
  return false;
}
