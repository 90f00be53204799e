/**
 * What changed, as far as the request path cares: access (users, credentials, workspaces,
 * membership, tests, revoked tokens), the sessions of one test, or the signing keys.
 */
export type Change = { topic: 'access' } | { topic: 'sessions'; testId: string } | { topic: 'keys' };

export type ChangeListener = (change: Change) => void;

/**
 * Carries changes to every process that caches what they affect. Publishing also delivers
 * to this process's own listeners.
 */
export interface ChangeFeed {
  publish(change: Change): Promise<void>;
  subscribe(listener: ChangeListener): void;
  close(): Promise<void>;
}

/** One process, no fan-out: enough when a single process serves (or SQLite tells the rest). */
export class LocalChangeFeed implements ChangeFeed {
  private readonly listeners: ChangeListener[] = [];

  async publish(change: Change): Promise<void> {
    this.deliver(change);
  }

  subscribe(listener: ChangeListener): void {
    this.listeners.push(listener);
  }

  protected deliver(change: Change): void {
    for (const listener of this.listeners) listener(change);
  }

  async close(): Promise<void> {}
}
