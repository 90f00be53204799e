import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { legacyNumericId } from './numeric-id.js';

describe('legacyNumericId', () => {
  it('is a positive safe integer, the same for a uuid in any case, and differs between uuids', () => {
    const uuid = '3339d946-3b60-4f09-8433-a2a7598d5d26';
    const id = legacyNumericId(uuid);
    expect(Number.isSafeInteger(id)).toBe(true);
    expect(id).toBeGreaterThan(0);
    expect(legacyNumericId(uuid.toUpperCase())).toBe(id);
    // Fixed: a change of derivation would renumber every deployment's ids.
    expect(id).toBe(3_399_546_407_810_744);
    const many = Array.from({ length: 10_000 }, () => legacyNumericId(randomUUID()));
    expect(new Set(many).size).toBe(many.length);
    expect(many.every((n) => Number.isSafeInteger(n) && n > 0)).toBe(true);
  });
});
