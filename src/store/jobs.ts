import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { audit } from './audit-log.js';
import type { Database, Row, Transaction } from './database.js';

/**
 * Background work kept in the database, so it outlives any process. A job is `queued` until
 * a process claims it: then it is `running` under a lease (an owner and a time) that the
 * owner renews while it works. A lease that runs out means the owner died: the job is
 * claimed again. Failure schedules another attempt after a growing delay; after the last
 * attempt the job ends in `error`, with the reason in the audit log. Only the owner of the
 * current lease can finish a job, so a process that lost its lease never records a result.
 */
export const JOB_STATES = ['queued', 'running', 'done', 'error'] as const;
export type JobState = (typeof JOB_STATES)[number];

export interface Job {
  id: string;
  /** What to do, e.g. `clip.generate`: names the handler. */
  kind: string;
  /** What the job works on (a clip's id): how the domain finds its job. */
  subject: string;
  payload: Record<string, unknown>;
  state: JobState;
  /** Attempts started so far (a claim starts one). */
  attempts: number;
  maxAttempts: number;
  /** Not claimed before this time. */
  runAt: number;
  leaseOwner: string | null;
  leaseUntil: number | null;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface JobInput {
  kind: string;
  subject: string;
  payload?: Record<string, unknown>;
  /** Default DEFAULT_MAX_ATTEMPTS. */
  maxAttempts?: number;
}

export interface JobFilter {
  state?: JobState;
  kind?: string;
  /** The newest this many (default 100). */
  limit?: number;
}

/** What a failed attempt led to. */
export type FailOutcome = 'retry' | 'error' | 'lost_lease';

export const DEFAULT_MAX_ATTEMPTS = 3;
const FIRST_RETRY_DELAY_MS = 5_000;
const MAX_RETRY_DELAY_MS = 5 * 60_000;

/** The wait before attempt `attempts + 1`: 5 s, 10 s, 20 s ... at most five minutes. */
export function retryDelayMs(attempts: number): number {
  return Math.min(MAX_RETRY_DELAY_MS, FIRST_RETRY_DELAY_MS * 2 ** Math.max(0, attempts - 1));
}

const COLUMNS =
  'id, kind, subject, payload, state, attempts, max_attempts, run_at, lease_owner, lease_until, last_error, created_at, updated_at';

const jobOf = (r: Row): Job => ({
  id: r.id as string,
  kind: r.kind as string,
  subject: r.subject as string,
  payload: typeof r.payload === 'string' ? (JSON.parse(r.payload) as Record<string, unknown>) : (r.payload as Record<string, unknown>),
  state: r.state as JobState,
  attempts: r.attempts as number,
  maxAttempts: r.max_attempts as number,
  runAt: r.run_at as number,
  leaseOwner: (r.lease_owner as string | null) ?? null,
  leaseUntil: (r.lease_until as number | null) ?? null,
  lastError: (r.last_error as string | null) ?? null,
  createdAt: r.created_at as number,
  updatedAt: r.updated_at as number,
});

/**
 * Queues a job inside the caller's transaction, so the job exists exactly when the thing it
 * works on does (a clip and the job that cuts it commit together).
 */
export async function enqueueJob(tx: Transaction, clock: Clock, input: JobInput): Promise<Job> {
  const now = clock.now();
  const id = randomUUID();
  await tx.run(
    `INSERT INTO jobs (id, kind, subject, payload, state, attempts, max_attempts, run_at, created_at, updated_at)
     VALUES (@id, @kind, @subject, @payload, 'queued', 0, @maxAttempts, @now, @now, @now)`,
    { id, kind: input.kind, subject: input.subject, payload: JSON.stringify(input.payload ?? {}), maxAttempts: input.maxAttempts ?? DEFAULT_MAX_ATTEMPTS, now },
  );
  return jobOf((await tx.one(`SELECT ${COLUMNS} FROM jobs WHERE id = @id`, { id }))!);
}

/**
 * Starts the job's attempts over (after `error`), inside the caller's transaction. A job
 * still queued or running is left alone. Resolves to whether it was restarted.
 */
export async function restartJob(tx: Transaction, clock: Clock, id: string): Promise<boolean> {
  const now = clock.now();
  const changed = await tx.run(
    `UPDATE jobs SET state = 'queued', attempts = 0, run_at = @now, lease_owner = NULL, lease_until = NULL, updated_at = @now
      WHERE id = @id AND state = 'error'`,
    { id, now },
  );
  return changed > 0;
}

// Jobs change nothing any request path caches: their writes announce nothing.
export class JobRepository {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /**
   * Takes the next due job for `owner` for `leaseMs`, starting an attempt; null when none is
   * due. A job is due when queued and its time has come, or running under a lease that ran
   * out. PostgreSQL skips rows another process is claiming at the same moment (SKIP LOCKED),
   * so concurrent claims never wait on each other nor take the same job; SQLite's write
   * transaction holds the whole database, which serializes them.
   *
   * A job whose lease ran out on its last attempt is not run again: it ends in `error`.
   */
  async claim(owner: string, leaseMs: number): Promise<Job | null> {
    // An idle runner asks often: a read first, so no write transaction is opened for nothing.
    const due = await this.db.one(
      `SELECT 1 AS due FROM jobs WHERE (state = 'queued' AND run_at <= @now) OR (state = 'running' AND lease_until <= @now) LIMIT 1`,
      { now: this.clock.now() },
    );
    if (!due) return null;
    return this.db.write(null, async (tx) => {
      for (;;) {
        const now = this.clock.now();
        const row = await tx.one(
          `SELECT ${COLUMNS} FROM jobs
            WHERE (state = 'queued' AND run_at <= @now) OR (state = 'running' AND lease_until <= @now)
            ORDER BY run_at, id LIMIT 1 FOR UPDATE SKIP LOCKED`,
          { now },
        );
        if (!row) return null;
        const job = jobOf(row);
        if (job.state === 'running' && job.attempts >= job.maxAttempts) {
          await this.endInError(tx, job, `the process running attempt ${job.attempts} of ${job.maxAttempts} stopped (its lease ran out)`);
          continue;
        }
        await tx.run(
          `UPDATE jobs SET state = 'running', attempts = attempts + 1, lease_owner = @owner, lease_until = @leaseUntil, updated_at = @now
            WHERE id = @id`,
          { id: job.id, owner, leaseUntil: now + leaseMs, now },
        );
        return { ...job, state: 'running', attempts: job.attempts + 1, leaseOwner: owner, leaseUntil: now + leaseMs, updatedAt: now };
      }
    });
  }

  /** Extends `owner`'s lease on a running job; false when the lease is no longer its own. */
  async heartbeat(id: string, owner: string, leaseMs: number): Promise<boolean> {
    const now = this.clock.now();
    const changed = await this.db.write(null, (tx) =>
      tx.run(
        `UPDATE jobs SET lease_until = @leaseUntil, updated_at = @now
          WHERE id = @id AND state = 'running' AND lease_owner = @owner`,
        { id, owner, leaseUntil: now + leaseMs, now },
      ),
    );
    return changed > 0;
  }

  /**
   * Records success, with `andThen` (the handler's own writes) in the same transaction;
   * false, and nothing written, when `owner` no longer holds the lease.
   */
  async complete(id: string, owner: string, andThen?: (tx: Transaction) => Promise<void>): Promise<boolean> {
    return this.db.write(null, async (tx) => {
      const now = this.clock.now();
      const changed = await tx.run(
        `UPDATE jobs SET state = 'done', lease_owner = NULL, lease_until = NULL, last_error = NULL, updated_at = @now
          WHERE id = @id AND state = 'running' AND lease_owner = @owner`,
        { id, owner, now },
      );
      if (changed === 0) return false;
      await andThen?.(tx);
      return true;
    });
  }

  /**
   * Records a failed attempt: another attempt after retryDelayMs, or `error` (and an audit
   * event with `reason`) after the last one. `lost_lease` when `owner` no longer held it.
   */
  async fail(id: string, owner: string, reason: string): Promise<FailOutcome> {
    return this.db.write(null, async (tx) => {
      const row = await tx.one(`SELECT ${COLUMNS} FROM jobs WHERE id = @id FOR UPDATE`, { id });
      const job = row && jobOf(row);
      if (!job || job.state !== 'running' || job.leaseOwner !== owner) return 'lost_lease';
      if (job.attempts >= job.maxAttempts) {
        await this.endInError(tx, job, reason);
        return 'error';
      }
      const now = this.clock.now();
      await tx.run(
        `UPDATE jobs SET state = 'queued', run_at = @runAt, lease_owner = NULL, lease_until = NULL, last_error = @reason, updated_at = @now
          WHERE id = @id`,
        { id, runAt: now + retryDelayMs(job.attempts), reason, now },
      );
      return 'retry';
    });
  }

  /**
   * Hands a running job back without counting its attempt (the process is shutting down):
   * another process may claim it at once. False when `owner` no longer held it.
   */
  async release(id: string, owner: string): Promise<boolean> {
    const now = this.clock.now();
    const changed = await this.db.write(null, (tx) =>
      tx.run(
        `UPDATE jobs SET state = 'queued', attempts = attempts - 1, run_at = @now, lease_owner = NULL, lease_until = NULL, updated_at = @now
          WHERE id = @id AND state = 'running' AND lease_owner = @owner`,
        { id, owner, now },
      ),
    );
    return changed > 0;
  }

  async get(id: string): Promise<Job | null> {
    const row = await this.db.one(`SELECT ${COLUMNS} FROM jobs WHERE id = @id`, { id });
    return row ? jobOf(row) : null;
  }

  /** The newest jobs that pass `filter`, newest first. */
  async list(filter: JobFilter = {}): Promise<Job[]> {
    const rows = await this.db.all(
      `SELECT ${COLUMNS} FROM jobs
        WHERE (CAST(@state AS TEXT) IS NULL OR state = @state) AND (CAST(@kind AS TEXT) IS NULL OR kind = @kind)
        ORDER BY created_at DESC, id DESC LIMIT @limit`,
      { state: filter.state ?? null, kind: filter.kind ?? null, limit: filter.limit ?? 100 },
    );
    return rows.map(jobOf);
  }

  /** How many jobs are in each state (states with none are left out). */
  async countByState(): Promise<Partial<Record<JobState, number>>> {
    const rows = await this.db.all('SELECT state, COUNT(*) AS n FROM jobs GROUP BY state ORDER BY state');
    return Object.fromEntries(rows.map((r) => [r.state as string, Number(r.n)]));
  }

  private async endInError(tx: Transaction, job: Job, reason: string): Promise<void> {
    const now = this.clock.now();
    await tx.run(
      `UPDATE jobs SET state = 'error', lease_owner = NULL, lease_until = NULL, last_error = @reason, updated_at = @now WHERE id = @id`,
      { id: job.id, reason, now },
    );
    await audit(tx, this.clock, { actor: 'jobs' }, 'job.fail', job.id, { kind: job.kind, subject: job.subject, attempts: job.attempts, reason });
  }
}
