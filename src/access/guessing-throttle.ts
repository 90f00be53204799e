import type { FastifyBaseLogger } from 'fastify';
import type { RateLimitConfig } from '../config.js';
import type { RateLimitDecision, RateLimiter } from '../http/rate-limiter.js';
import { limitedAddress } from '../http/limited-address.js';
import type { Metrics } from '../observability/metrics.js';
import type { AuditLog } from '../store/audit-log.js';

/**
 * Throttling of credential guessing, after OWASP's guidance on blocking brute force: failures
 * are counted per source address and per (account, address), never per account alone, so a
 * stranger's failures cannot lock an owner out; failures against one account from every
 * address together are counted too, and reported (metric, audit entry, one log line) when
 * they reach the alert threshold, never refused. One module serves every endpoint that
 * checks a credential: the public token, introspection and revocation endpoints and the admin
 * token endpoint (client secrets), and the admin and API-user sign-ins (passwords). Its counters live in the
 * shared rate limiter (Redis when configured), so every process sees the same budget.
 */

export interface GuessingLimits {
  windowSeconds: number;
  /** Failed attempts from one address (an IPv6 /64), whatever the account, per window. */
  failuresPerAddress: number;
  /** Failed attempts for one account from one address per window. */
  failuresPerAccountAndAddress: number;
  /** Failed attempts for one account from all addresses together per window at which distributed guessing is reported. */
  alertAfterAccountFailures: number;
}

/**
 * What a credential check answered: the caller's value, or the refusal to throw and whether
 * the named account exists. `rightCredential`: the password was right and something else is
 * missing (a second factor's code not yet sent), so it is no failure.
 */
export type Checked<T> = { ok: true; value: T } | { ok: false; refusal: Error; accountExists: boolean; rightCredential?: true };

export interface Attempt {
  /** The peer's address as the listener sees it (request.ip). */
  address: string;
  /** The account the credential claims (a client id, an admin's email key); undefined when none was named. */
  account: string | undefined;
  log: FastifyBaseLogger;
}

/** Distributed guessing against one account reached the alert threshold in the current window (reported once per window). */
export interface GuessingAlert {
  /** Which throttle: `token`, `admin-token`, `admin-sign-in`, `user-sign-in`. */
  endpoint: string;
  account: string;
  failures: number;
  windowSeconds: number;
}

export interface GuessingThrottleDeps {
  rateLimiter: RateLimiter;
  /** Records the alert (metric, audit entry); the throttle writes the log line itself. */
  report: (alert: GuessingAlert) => Promise<void>;
}

type Budget = readonly [key: string, limit: number];

export class GuessingThrottle {
  constructor(
    private readonly endpoint: string,
    private readonly limits: GuessingLimits,
    private readonly deps: GuessingThrottleDeps,
  ) {}

  /**
   * For credentials strong enough that guessing them is hopeless (256-bit client secrets):
   * the credential is always checked, and a correct one is never refused, whoever else failed
   * from its address. A failure counts against its address and its (account, address); once
   * either is over its limit the failure is answered with `throttled` (429) instead of the
   * refusal.
   */
  async checkSecret<T>(attempt: Attempt, check: () => Promise<Checked<T>>, throttled: (retryAfterSeconds: number) => Error): Promise<T> {
    const result = await check();
    if (result.ok) return result.value;
    const decisions = await this.hitAll(this.budgets(attempt));
    await this.countAgainstAccount(attempt, result.accountExists);
    const refused = refusedFor(decisions);
    throw refused === undefined ? result.refusal : throttled(refused);
  }

  /**
   * For passwords, which people choose: an attempt from an address or (account, address) over
   * its limit is refused before the password is checked, so guessing is slowed where it comes
   * from. A known device (`device`: an id the caller verified, such as a signed device cookie
   * the account earned by signing in there) is counted by its own failures only, so the owner
   * gets through from an address someone else has been failing from. Attempts are counted up
   * front (parallel guesses cannot slip past a limit) and a success is taken back.
   */
  async checkPassword<T>(
    attempt: Attempt & { device?: string | undefined },
    check: () => Promise<Checked<T>>,
    throttled: (retryAfterSeconds: number) => Error,
  ): Promise<T> {
    const budgets: Budget[] = attempt.device
      ? [[`${this.endpoint}:device:${attempt.device}`, this.limits.failuresPerAccountAndAddress]]
      : this.budgets(attempt);
    const refused = refusedFor(await this.hitAll(budgets));
    if (refused !== undefined) throw throttled(refused);
    const result = await check();
    if (result.ok || result.rightCredential) {
      await Promise.all(budgets.map(([key]) => this.deps.rateLimiter.refund(key, this.limits.windowSeconds)));
      if (result.ok) return result.value;
    } else {
      await this.countAgainstAccount(attempt, result.accountExists);
    }
    throw result.refusal;
  }

  private budgets(attempt: Attempt): Budget[] {
    const address = limitedAddress(attempt.address);
    const budgets: Budget[] = [[`${this.endpoint}:address:${address}`, this.limits.failuresPerAddress]];
    // The address first: it never contains '|', so no account name can forge another pair's key.
    if (attempt.account !== undefined) budgets.push([`${this.endpoint}:pair:${address}|${attempt.account.slice(0, 254)}`, this.limits.failuresPerAccountAndAddress]);
    return budgets;
  }

  private hitAll(budgets: readonly Budget[]): Promise<RateLimitDecision[]> {
    return Promise.all(budgets.map(([key, limit]) => this.deps.rateLimiter.hit(key, limit, this.limits.windowSeconds)));
  }

  /**
   * Counts a failure against the account from every address. The failure that makes the count
   * reach the threshold (exactly one, in one process, even with Redis shared by many) reports
   * it; the account is never refused for it.
   */
  private async countAgainstAccount(attempt: Attempt, accountExists: boolean): Promise<void> {
    if (attempt.account === undefined) return;
    const { alertAfterAccountFailures: threshold, windowSeconds } = this.limits;
    const account = attempt.account.slice(0, 254);
    const decision = await this.deps.rateLimiter.hit(`${this.endpoint}:account:${account}`, threshold, windowSeconds);
    // Only an account that exists is worth an alert: random names would only fill the audit log.
    if (!accountExists || !decision.allowed || decision.remaining !== 0) return;
    const alert: GuessingAlert = { endpoint: this.endpoint, account, failures: threshold, windowSeconds };
    attempt.log.warn(
      { guessing: alert },
      `distributed guessing: ${threshold} failed attempts against ${this.endpoint} account ${account} within ${windowSeconds} s; not locked, throttled per address`,
    );
    await this.deps.report(alert).catch((err: unknown) => attempt.log.error({ reason: (err as Error).message }, 'the guessing alert was not recorded'));
  }
}

/** The longest wait among refused decisions; undefined when none refused. */
function refusedFor(decisions: readonly RateLimitDecision[]): number | undefined {
  const refused = decisions.filter((d) => !d.allowed);
  return refused.length === 0 ? undefined : Math.max(...refused.map((d) => d.resetSeconds));
}

/** The limits of the endpoints that check client secrets (RATE_LIMIT_TOKEN_*, GUESSING_ALERT_TOKEN_CLIENT). */
const clientSecretLimits = (rateLimit: RateLimitConfig): GuessingLimits => ({
  windowSeconds: rateLimit.windowSeconds,
  failuresPerAddress: rateLimit.tokenFailuresPerAddress,
  failuresPerAccountAndAddress: rateLimit.tokenFailuresPerClientAndAddress,
  alertAfterAccountFailures: rateLimit.tokenGuessingAlert,
});

/** Reports an alert as the `auth_guessing_alerts_total` metric and a `guessing.alert` audit entry. */
export const guessingReporter =
  (deps: { metrics: Pick<Metrics, 'guessingAlerts'>; audit: Pick<AuditLog, 'record'> }) =>
  async (alert: GuessingAlert): Promise<void> => {
    deps.metrics.guessingAlerts.inc({ endpoint: alert.endpoint });
    await deps.audit.record({ actor: 'system' }, 'guessing.alert', alert.account, {
      endpoint: alert.endpoint,
      failures: alert.failures,
      windowSeconds: alert.windowSeconds,
    });
  };

/**
 * The throttle of the endpoints that check client or app secrets: built once where they are
 * registered and shared, so a token request constructs nothing for it.
 */
export const clientSecretThrottle = (
  endpoint: 'token' | 'admin-token',
  deps: { rateLimit: RateLimitConfig; rateLimiter: RateLimiter; metrics: Pick<Metrics, 'guessingAlerts'>; audit: Pick<AuditLog, 'record'> },
): GuessingThrottle =>
  new GuessingThrottle(endpoint, clientSecretLimits(deps.rateLimit), { rateLimiter: deps.rateLimiter, report: guessingReporter(deps) });
