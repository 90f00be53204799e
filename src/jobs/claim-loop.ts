import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/** An owner name that says which process holds a lease (and is never reused by another). */
export function leaseOwnerName(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

/** Log lines a claim loop writes: once when the database stops answering, once when it answers again. */
export interface ClaimLoopLog {
  info(o: object, msg: string): void;
  warn(o: object, msg: string): void;
}

export interface ClaimLoopOptions<T> {
  /** Items worked on at once (at least 1). */
  concurrency: number;
  /** Claims only when at least this many slots are free (or none is busy): a claim costs a write. */
  minClaim: number;
  /** How often an idle loop looks for due work. */
  pollMs: number;
  /** Takes up to `limit` due items under this process's lease. */
  claim(limit: number): Promise<T[]>;
  /** Works on one item; must not throw (it records its own failures). */
  work(item: T): Promise<void>;
  log: ClaimLoopLog;
  /** What the log lines say, e.g. `{ subject: 'jobs', claims: 'claim jobs', resumes: 'claiming jobs' }`. */
  words: { subject: string; claims: string; resumes: string };
}

/**
 * The loop behind each of a process's background workers (the job runner, the webhook
 * delivery worker): claims due work from the database while slots are free, sleeps `pollMs`
 * (or until nudged) when nothing is due or every slot is busy, and rides out a database
 * outage (a claim that fails is tried again at the next poll, logged once).
 */
export class ClaimLoop<T> {
  private readonly running = new Set<Promise<void>>();
  private stopped = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private databaseDown = false;

  constructor(private readonly options: ClaimLoopOptions<T>) {
    if (!(options.concurrency >= 1)) throw new Error('a claim loop needs a concurrency of at least 1');
  }

  /** Whether stop() was called. */
  get stopping(): boolean {
    return this.stopped;
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Looks for due work now instead of at the next poll. */
  nudge(): void {
    this.wake?.();
  }

  /** Stops claiming at once; resolves when the loop and the work in flight have ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    await Promise.all(this.running);
  }

  private async run(): Promise<void> {
    const { concurrency, minClaim } = this.options;
    while (!this.stopped) {
      const free = concurrency - this.running.size;
      const claimed = free >= Math.min(minClaim, concurrency) || this.running.size === 0 ? await this.claim(free) : [];
      for (const item of claimed) this.track(this.options.work(item));
      if (claimed.length === 0 || this.running.size >= concurrency) await this.sleep();
    }
  }

  private track(work: Promise<void>): void {
    const done = work.finally(() => {
      this.running.delete(done);
      this.wake?.();
    });
    this.running.add(done);
  }

  private async claim(limit: number): Promise<T[]> {
    const { log, words } = this.options;
    try {
      const claimed = await this.options.claim(limit);
      if (this.databaseDown) {
        this.databaseDown = false;
        log.info({}, `${words.subject}: the database answers again; ${words.resumes}`);
      }
      return claimed;
    } catch (err) {
      if (!this.databaseDown) {
        this.databaseDown = true;
        log.warn({ reason: (err as Error).message }, `${words.subject}: cannot ${words.claims} (database unavailable); retrying`);
      }
      return [];
    }
  }

  private sleep(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, this.options.pollMs);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    }).then(() => {
      this.wake = undefined;
    });
  }
}
