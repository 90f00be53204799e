import { describe, expect, it } from 'vitest';
import { Outage, type OutageEvent } from './outage.js';

describe('Outage', () => {
  it('tells one down and one up per outage, however many failures', () => {
    const outage = new Outage();
    const events: OutageEvent[] = [];
    outage.onChange((e) => events.push(e));
    outage.markUp();
    for (let i = 0; i < 1000; i++) outage.markDown(`failure ${i}`);
    outage.markUp();
    outage.markUp();
    outage.markDown('again');
    expect(events).toEqual([{ state: 'down', reason: 'failure 0' }, { state: 'up' }, { state: 'down', reason: 'again' }]);
  });

  it('tells a listener attached during an outage at once', () => {
    const outage = new Outage();
    outage.markDown('refused');
    const events: OutageEvent[] = [];
    outage.onChange((e) => events.push(e));
    expect(events).toEqual([{ state: 'down', reason: 'refused' }]);
    expect(outage.isDown).toBe(true);
  });
});
