import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { Outage } from '../observability/outage.js';
import type { Change } from '../changes/change-feed.js';
import { RedisChangeFeed } from './redis-change-feed.js';

/** A connection that is open ('ready') and answers `publish` as told. */
function fakePublisher(publish: () => Promise<number>): Redis & { calls: number } {
  const fake = Object.assign(new EventEmitter(), {
    status: 'ready',
    calls: 0,
    publish: () => {
      fake.calls++;
      return publish();
    },
  });
  return fake as unknown as Redis & { calls: number };
}

const subscriber = () => Object.assign(new EventEmitter(), { subscribe: async () => 1 }) as unknown as Redis;
const change: Change = { topic: 'keys' };

describe('RedisChangeFeed', () => {
  it('delivers locally, and reports a publish that fails on an open connection', async () => {
    const failures: string[] = [];
    const feed = new RedisChangeFeed(
      fakePublisher(() => Promise.reject(new Error('Command timed out'))),
      subscriber(),
      new Outage(),
      'changes',
      (err) => failures.push(err.message),
    );
    const heard: Change[] = [];
    feed.subscribe((c) => heard.push(c));
    await feed.publish(change);
    expect(heard).toEqual([change]);
    expect(failures).toEqual(['Command timed out']);
  });

  it('does not try Redis during a known outage', async () => {
    const outage = new Outage();
    outage.markDown('Command timed out');
    const publisher = fakePublisher(async () => 1);
    const feed = new RedisChangeFeed(publisher, subscriber(), outage, 'changes', () => {
      throw new Error('nothing was sent, so nothing can fail');
    });
    await feed.publish(change);
    expect(publisher.calls).toBe(0);
  });
});
