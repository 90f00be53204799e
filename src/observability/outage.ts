/** What an outage's log line gives as its reason: the error's message, else its code. */
export function outageReason(err: Error): string {
  return err.message || (err as { code?: string }).code || 'unreachable';
}

export type OutageEvent = { state: 'down'; reason: string } | { state: 'up' };
export type OutageListener = (event: OutageEvent) => void;

/**
 * Whether one dependency is down, told once per outage: the first failure reports 'down',
 * the first success after it reports 'up', and the thousands of failures in between say
 * nothing (one log line per outage, not one per request).
 */
export class Outage {
  private down: { reason: string } | undefined;
  private readonly listeners: OutageListener[] = [];

  get isDown(): boolean {
    return this.down !== undefined;
  }

  /** A listener attached during an outage hears of it at once, so none is missed at startup. */
  onChange(listener: OutageListener): void {
    this.listeners.push(listener);
    if (this.down) listener({ state: 'down', reason: this.down.reason });
  }

  markDown(reason: string): void {
    if (this.down) return;
    this.down = { reason };
    for (const listener of this.listeners) listener({ state: 'down', reason });
  }

  markUp(): void {
    if (!this.down) return;
    this.down = undefined;
    for (const listener of this.listeners) listener({ state: 'up' });
  }
}
