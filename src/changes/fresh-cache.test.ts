import { describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.js';
import { LocalChangeFeed } from './change-feed.js';
import { ChangeWatcher, FreshCache } from './fresh-cache.js';

describe('FreshCache', () => {
  // PostgreSQL's watcher hears the feed only; SQLite's also every commit (data_version).
  const setup = (options = {}, { hearsCommits = false } = {}) => {
    const clock = new ManualClock();
    const feed = new LocalChangeFeed();
    let version = 0;
    const watcher = new ChangeWatcher(hearsCommits ? { externalChangeVersion: () => version } : {}, feed);
    const cache = new FreshCache<string>(watcher, clock, options);
    let loads = 0;
    const load = (value: string) => async () => {
      loads++;
      return value;
    };
    return { clock, feed, cache, load, loads: () => loads, bumpExternal: () => version++ };
  };

  it('serves a hit without loading, until the entry expires', async () => {
    const { cache, load, loads, clock } = setup({ ttlMs: 100 });
    await cache.get('k', load('a'));
    expect(await cache.get('k', load('b'))).toBe('a');
    clock.advance(100);
    expect(await cache.get('k', load('c'))).toBe('c');
    expect(loads()).toBe(2);
  });

  it('where it hears every commit, keeps an entry until a change, however old', async () => {
    const { cache, load, loads, clock, bumpExternal } = setup({ ttlMs: 100 }, { hearsCommits: true });
    await cache.get('k', load('a'));
    clock.advance(3_600_000);
    expect(await cache.get('k', load('b'))).toBe('a');
    bumpExternal();
    await new Promise((r) => setImmediate(r));
    expect(await cache.get('k', load('c'))).toBe('c');
    expect(loads()).toBe(2);
  });

  it('drops everything on a change announced on the feed, or made by another connection', async () => {
    const { cache, load, feed, bumpExternal } = setup({}, { hearsCommits: true });
    await cache.get('k', load('a'));
    await feed.publish({ topic: 'access' });
    expect(await cache.get('k', load('b'))).toBe('b');
    bumpExternal();
    await new Promise((r) => setImmediate(r)); // the next turn of the event loop asks again
    expect(await cache.get('k', load('c'))).toBe('c');
  });

  it('keeps within its size bound by dropping the oldest entries, and never keeps an oversized one', async () => {
    const { cache, load, loads } = setup({ maxSize: 10, sizeOf: (v: string) => v.length });
    await cache.get('a', load('aaaa'));
    await cache.get('b', load('bbbb'));
    await cache.get('c', load('cccc')); // 12 > 10: 'a' goes
    expect(await cache.get('b', load('x'))).toBe('bbbb');
    expect(await cache.get('a', load('AAAA'))).toBe('AAAA');
    await cache.get('big', load('x'.repeat(11)));
    expect(await cache.get('big', load('small'))).toBe('small');
    expect(loads()).toBe(6);
  });

  it('keeps the value it has when an expired entry loads again the same, and renews it', async () => {
    const clock = new ManualClock();
    const watcher = new ChangeWatcher({}, new LocalChangeFeed());
    const cache = new FreshCache<{ text: string }>(watcher, clock, { ttlMs: 100, sameValue: (a, b) => a.text === b.text });
    const kept = await cache.get('k', async () => ({ text: 'a' }));
    clock.advance(100);
    expect(await cache.get('k', async () => ({ text: 'a' }))).toBe(kept);
    clock.advance(99); // renewed by the reload: still a hit
    expect(await cache.get('k', async () => ({ text: 'unused' }))).toBe(kept);
    clock.advance(1);
    const changed = await cache.get('k', async () => ({ text: 'b' }));
    expect(changed).toEqual({ text: 'b' });
    expect(await cache.get('k', async () => ({ text: 'unused' }))).toBe(changed);
  });

  it('keeps only the values `keep` accepts: a miss is asked again, a hit is not', async () => {
    const { cache, load, loads } = setup({ keep: (value: string) => value !== 'none' }, { hearsCommits: true });
    expect(await cache.get('k', load('none'))).toBe('none');
    expect(await cache.get('k', load('app'))).toBe('app');
    expect(await cache.get('k', load('other'))).toBe('app');
    expect(loads()).toBe(2);
  });

  it('does not keep a value loaded while a change happened', async () => {
    const { cache, feed } = setup();
    let finishLoad: (value: string) => void = () => {};
    const slow = cache.get('k', () => new Promise<string>((resolve) => (finishLoad = resolve)));
    await feed.publish({ topic: 'access' });
    await cache.get('other', async () => 'x'); // a request after the change moves the cache on
    finishLoad('stale');
    expect(await slow).toBe('stale');
    expect(await cache.get('k', async () => 'fresh')).toBe('fresh');
  });

  it('shares one load among concurrent misses of a key, but not across a change', async () => {
    const { cache, feed } = setup();
    let loads = 0;
    const finishers: ((value: string) => void)[] = [];
    const slowLoad = () => {
      loads++;
      return new Promise<string>((resolve) => finishers.push(resolve));
    };
    const first = cache.get('k', slowLoad);
    const second = cache.get('k', slowLoad);
    expect(loads).toBe(1);
    await feed.publish({ topic: 'access' });
    const afterChange = cache.get('k', slowLoad);
    expect(loads).toBe(2);
    finishers[0]!('before');
    finishers[1]!('after');
    expect([await first, await second, await afterChange]).toEqual(['before', 'before', 'after']);
  });

  it('lets a failed load fail every request that shared it, and loads again on the next', async () => {
    const { cache, load } = setup();
    const failing = () => Promise.reject(new Error('database down'));
    const results = await Promise.allSettled([cache.get('k', failing), cache.get('k', failing)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(await cache.get('k', load('back'))).toBe('back');
  });
});
