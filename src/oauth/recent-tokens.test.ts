import { describe, expect, it } from 'vitest';
import type { IssuedToken } from './access-tokens.js';
import { RecentTokens } from './recent-tokens.js';

const token = (jti: string) => ({ accessToken: jti, kid: 'k', scope: 's', claims: { jti } }) as unknown as IssuedToken;

describe('RecentTokens', () => {
  it('finds a token until the window ends, then forgets it', async () => {
    const recent = new RecentTokens(30, 3600);
    recent.remember('c s', 1_000, Promise.resolve(token('a')));
    expect(await recent.find('c s', 30_999)).toMatchObject({ accessToken: 'a' });
    expect(recent.find('c s', 31_000)).toBeUndefined();
    expect(recent.find('c s', 1_000)).toBeUndefined();
  });

  it('forgets a signature that failed, so the next request signs afresh', async () => {
    const recent = new RecentTokens(30, 3600);
    const failed = Promise.reject(new Error('signing failed'));
    recent.remember('c s', 0, failed);
    await expect(failed).rejects.toThrow();
    expect(recent.find('c s', 1)).toBeUndefined();
  });

  it('keeps at most maxEntries clients, dropping the oldest', () => {
    const recent = new RecentTokens(30, 3600, 2);
    for (const key of ['a', 'b', 'c']) recent.remember(key, 0, Promise.resolve(token(key)));
    expect(recent.find('a', 1)).toBeUndefined();
    expect(recent.find('b', 1)).toBeDefined();
    expect(recent.find('c', 1)).toBeDefined();
  });

  it('remembers nothing when reuse is off', () => {
    const recent = new RecentTokens(0, 3600);
    recent.remember('c s', 0, Promise.resolve(token('a')));
    expect(recent.find('c s', 0)).toBeUndefined();
  });
});
