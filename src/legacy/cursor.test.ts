import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ApiProblem } from '../errors.js';
import { SessionCursors } from './cursor.js';

const TEST = '7e6d5c4b-3a29-4180-9f7e-6d5c4b3a2918';
const OTHER = '1a2b3c4d-5e6f-4a1b-9c2d-3e4f5a6b7c8d';
const at = { startTime: 1_732_191_832_614, sessionId: 'f0e1d2c3-b4a5-4968-8776-5a4b3c2d1e0f' };

const refusal = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiProblem);
    expect((error as ApiProblem).status).toBe(400);
    return (error as ApiProblem).detail;
  }
  throw new Error('expected a refusal');
};

describe('SessionCursors', () => {
  const cursors = new SessionCursors(randomBytes(32));

  it('gives back the position it signed, for its own test only', () => {
    expect(cursors.decode('after', cursors.encode(TEST, at), TEST)).toEqual(at);
    expect(refusal(() => cursors.decode('before', cursors.encode(OTHER, at), TEST))).toBe(
      "before is a cursor of another study; use cursors from this study's own listing.",
    );
  });

  it('refuses a cursor signed with another key: one deployment cannot forge another’s', () => {
    const elsewhere = new SessionCursors(randomBytes(32)).encode(TEST, at);
    expect(refusal(() => cursors.decode('after', elsewhere, TEST))).toBe('after is not a cursor this listing issued (signature mismatch).');
  });

  it('refuses a position changed under its signature, and malformed text', () => {
    const [, mac] = cursors.encode(TEST, at).split('.');
    const moved = Buffer.from(`${TEST}|${at.startTime - 1}|${at.sessionId}`).toString('base64url');
    expect(refusal(() => cursors.decode('after', `${moved}.${mac}`, TEST))).toMatch(/signature mismatch/);
    for (const bad of ['', '.', 'abc', 'a.b.c', 'x'.repeat(301)]) {
      expect(refusal(() => cursors.decode('after', bad, TEST))).toMatch(/^after is not a cursor this listing issued/);
    }
  });

  it('loads its key once per deployment: the first stored key wins', async () => {
    const stored = new Map<string, string>();
    const settings = { getOrSet: async (key: string, value: string) => (stored.has(key) ? stored.get(key)! : (stored.set(key, value), value)) };
    const first = await SessionCursors.load(settings);
    const second = await SessionCursors.load(settings);
    expect(second.decode('after', first.encode(TEST, at), TEST)).toEqual(at);
  });
});
