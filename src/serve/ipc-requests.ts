/** A request to another process of the cluster that got no reply in time. */
export class IpcTimeoutError extends Error {
  override name = 'IpcTimeoutError';
}

interface Waiter<R> {
  resolve: (reply: R) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * Requests between the processes of a cluster, matched to their replies by id. Every request
 * settles: with its reply, or with IpcTimeoutError after `timeoutMs` (a stopped or wedged
 * process is never awaited); a reply arriving after that is dropped.
 */
export class IpcRequests<R extends { id: number; error?: string }> {
  private nextId = 0;
  private readonly pending = new Map<number, Waiter<R>>();

  constructor(
    private readonly timeoutMs: number,
    private readonly describe: string,
  ) {}

  /** Sends with `deliver(id)`; `deliver` reports a failed send with `fail`. */
  send(deliver: (id: number, fail: (err: Error) => void) => void): Promise<R> {
    const id = this.nextId++;
    return new Promise<R>((resolve, reject) => {
      const timer = setTimeout(() => this.finish(id)?.reject(new IpcTimeoutError(`${this.describe}: no reply within ${this.timeoutMs} ms`)), this.timeoutMs);
      // A pending request never keeps a stopping process alive.
      timer.unref();
      this.pending.set(id, { resolve, reject, timer });
      const fail = (err: Error) => this.finish(id)?.reject(err);
      try {
        deliver(id, fail);
      } catch (err) {
        fail(err as Error);
      }
    });
  }

  /** Settles the request `reply` answers; false when it answers none still waiting. */
  settle(reply: R): boolean {
    const waiter = this.finish(reply.id);
    if (!waiter) return false;
    if (reply.error !== undefined) waiter.reject(new Error(reply.error));
    else waiter.resolve(reply);
    return true;
  }

  private finish(id: number): Waiter<R> | undefined {
    const waiter = this.pending.get(id);
    if (!waiter) return undefined;
    this.pending.delete(id);
    clearTimeout(waiter.timer);
    return waiter;
  }
}
