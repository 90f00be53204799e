import type { Job, JobRepository } from '../store/jobs.js';
import type { Transaction } from '../store/database.js';
import { ClaimLoop, leaseOwnerName } from './claim-loop.js';

/** What a handler is given besides its job. */
export interface JobContext {
  /** Aborted when the runner stops or loses the job's lease: stop work (kill ffmpeg) and throw. */
  signal: AbortSignal;
}

/**
 * Does one job's work. It resolves when the work is done, optionally with the writes that
 * record the result (run in the transaction that marks the job done, so both commit or
 * neither), and throws to fail the attempt (the error's message is the reason kept).
 * Work must be safe to repeat: an attempt cut short by a crash is run again from the start.
 */
export type JobHandler = (job: Job, context: JobContext) => Promise<void | ((tx: Transaction) => Promise<void>)>;

/** What the runner reports, for metrics. */
export interface JobObserver {
  started(kind: string): void;
  /** `outcome`: done, retry, error, lost_lease or released. */
  finished(kind: string, outcome: string, seconds: number): void;
}

export interface JobRunnerOptions {
  /** Jobs run at once by this runner (at least 1). */
  concurrency: number;
  leaseMs: number;
  /** How often an idle runner looks for due jobs. */
  pollMs?: number;
  log: { info(o: object, msg: string): void; warn(o: object, msg: string): void; error(o: object, msg: string): void };
  observer?: JobObserver;
}

const DEFAULT_POLL_MS = 500;

/**
 * Runs due jobs from the database, at most `concurrency` at a time, in this process. Each
 * job's lease is renewed every third of its length while its handler works; a runner that
 * cannot renew it (another process took the job after a stall) aborts the handler and
 * records nothing. On stop, running handlers are aborted and their jobs handed back
 * uncounted, so a restart or another process picks them up at once.
 */
export class JobRunner {
  readonly owner = leaseOwnerName();
  /** Each running job's abort controller, aborted on stop. */
  private readonly running = new Map<string, AbortController>();
  private readonly loop: ClaimLoop<Job>;

  constructor(
    private readonly jobs: JobRepository,
    private readonly handlers: Readonly<Record<string, JobHandler>>,
    private readonly options: JobRunnerOptions,
  ) {
    this.loop = new ClaimLoop<Job>({
      concurrency: options.concurrency,
      minClaim: 1,
      pollMs: options.pollMs ?? DEFAULT_POLL_MS,
      claim: async () => {
        const job = await this.jobs.claim(this.owner, this.options.leaseMs);
        return job ? [job] : [];
      },
      work: (job) => this.run(job),
      log: options.log,
      words: { subject: 'jobs', claims: 'claim jobs', resumes: 'claiming jobs' },
    });
  }

  start(): void {
    this.loop.start();
  }

  /** Looks for due jobs now instead of at the next poll (e.g. one was just queued here). */
  nudge(): void {
    this.loop.nudge();
  }

  async stop(): Promise<void> {
    const stopped = this.loop.stop();
    for (const controller of this.running.values()) controller.abort(new Error('the server is shutting down'));
    await stopped;
  }

  private async run(job: Job): Promise<void> {
    const controller = new AbortController();
    this.running.set(job.id, controller);
    try {
      await this.attempt(job, controller);
    } finally {
      this.running.delete(job.id);
    }
  }

  private async attempt(job: Job, controller: AbortController): Promise<void> {
    const { log, observer, leaseMs } = this.options;
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    observer?.started(job.kind);
    const heartbeat = setInterval(() => {
      void this.jobs.heartbeat(job.id, this.owner, leaseMs).then(
        (held) => {
          if (!held) controller.abort(new Error('the job lease was lost'));
        },
        // A database hiccup: the lease holds until it runs out; the next beat may succeed.
        () => undefined,
      );
    }, Math.max(100, Math.floor(leaseMs / 3)));
    let outcome: string;
    try {
      const handler = this.handlers[job.kind];
      if (!handler) throw new Error(`no handler for jobs of kind ${job.kind}`);
      const record = await handler(job, { signal: controller.signal });
      if (controller.signal.aborted) throw controller.signal.reason;
      outcome = (await this.jobs.complete(job.id, this.owner, record || undefined)) ? 'done' : 'lost_lease';
    } catch (err) {
      outcome = await this.settleFailure(job, controller, err);
    } finally {
      clearInterval(heartbeat);
    }
    observer?.finished(job.kind, outcome, seconds());
    const fields = { jobId: job.id, kind: job.kind, subject: job.subject, attempt: job.attempts, outcome, seconds: Number(seconds().toFixed(3)) };
    if (outcome === 'error') log.error(fields, `job ${job.kind} failed for good after ${job.attempts} attempts`);
    else log.info(fields, `job ${job.kind} ${outcome}`);
  }

  private async settleFailure(job: Job, controller: AbortController, err: unknown): Promise<string> {
    const reason = err instanceof Error ? err.message : String(err);
    try {
      if (this.loop.stopping && controller.signal.aborted) return (await this.jobs.release(job.id, this.owner)) ? 'released' : 'lost_lease';
      return await this.jobs.fail(job.id, this.owner, reason);
    } catch (dbErr) {
      // The lease runs out and the job is claimed again: nothing is lost.
      this.options.log.warn({ jobId: job.id, reason: (dbErr as Error).message }, 'jobs: could not record the end of an attempt');
      return 'unrecorded';
    }
  }
}
