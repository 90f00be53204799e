import { describe, expect, it } from 'vitest';
import { SessionIdFilter } from './session-id-filter.js';

const id = (n: number) => `5e551000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

describe('SessionIdFilter', () => {
  it('never forgets an id it was given', () => {
    const filter = new SessionIdFilter(1 << 16);
    for (let n = 0; n < 20_000; n++) filter.add(id(n));
    for (let n = 0; n < 20_000; n++) expect(filter.has(id(n))).toBe(true);
    expect(filter.add(id(7))).toBe(true);
  });

  it('says "new" for new ids when it has room (ids alike but for a few digits included)', () => {
    const filter = SessionIdFilter.forFile(200_000 * 100);
    let falseMaybes = 0;
    for (let n = 0; n < 200_000; n++) if (filter.add(id(n))) falseMaybes++;
    expect(falseMaybes).toBe(0);
    expect(filter.has(id(200_000))).toBe(false);
  });
});
