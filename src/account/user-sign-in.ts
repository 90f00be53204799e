import { GuessingThrottle, guessingReporter, type Checked } from '../access/guessing-throttle.js';
import type { Clock } from '../clock.js';
import type { UserSignInConfig } from '../config.js';
import type { FastifyBaseLogger } from 'fastify';
import type { RateLimiter } from '../http/rate-limiter.js';
import type { Metrics } from '../observability/metrics.js';
import { decoyHash, verifyPassword } from '../sign-in/passwords.js';
import { acceptedTotpStep } from '../sign-in/totp.js';
import type { Store } from '../store/open-store.js';
import type { User } from '../store/store.js';

/** Failed sign-ins are counted in fixed 15-minute windows. */
export const USER_SIGN_IN_WINDOW_SECONDS = 15 * 60;

export type SignInOutcome =
  | { ok: true; user: User }
  | { ok: false; reason: 'bad-credentials' | 'code-required' }
  | { ok: false; reason: 'throttled'; retryAfterSeconds: number };

/** Why a check refused, carried through the throttle as its refusal. */
class Refused extends Error {
  constructor(readonly outcome: Exclude<SignInOutcome, { ok: true }>) {
    super(outcome.reason);
  }
}

export interface UserSignInAttempt {
  /** The email as typed; `account` is its email key. */
  email: string;
  account: string;
  password: string;
  code: string | undefined;
  address: string;
  /** The device id of the browser's device cookie for this account, when it has a valid one. */
  device: string | undefined;
  log: FastifyBaseLogger;
}

/**
 * Checks an API user's email, password and (when turned on) TOTP code through the one guessing
 * throttle: per address and per (account, address), or per device for a browser that signed
 * in to the account before; an account's failures from every address are reported, never
 * refused. An unknown account, or one without a password yet, costs a password hash too, so
 * timing does not tell which exist.
 */
export class UserSignIn {
  private readonly throttle: GuessingThrottle;

  constructor(private readonly deps: { store: Store; clock: Clock; rateLimiter: RateLimiter; metrics: Metrics; limits: UserSignInConfig }) {
    this.throttle = new GuessingThrottle(
      'user-sign-in',
      {
        windowSeconds: USER_SIGN_IN_WINDOW_SECONDS,
        failuresPerAddress: deps.limits.failuresPerAddress,
        failuresPerAccountAndAddress: deps.limits.failuresPerAccount,
        alertAfterAccountFailures: deps.limits.guessingAlert,
      },
      { rateLimiter: deps.rateLimiter, report: guessingReporter({ metrics: deps.metrics, audit: deps.store.audit }) },
    );
  }

  async signIn(attempt: UserSignInAttempt): Promise<SignInOutcome> {
    try {
      const user = await this.throttle.checkPassword(
        { address: attempt.address, account: attempt.account, device: attempt.device, log: attempt.log },
        () => this.check(attempt),
        (retryAfterSeconds) => new Refused({ ok: false, reason: 'throttled', retryAfterSeconds }),
      );
      return { ok: true, user };
    } catch (err) {
      if (err instanceof Refused) return err.outcome;
      throw err;
    }
  }

  private async check(attempt: UserSignInAttempt): Promise<Checked<User>> {
    const found = await this.deps.store.userAccounts.findForSignIn(attempt.email);
    const passwordOk = await verifyPassword(attempt.password, found?.passwordHash ?? (await decoyHash()));
    const refused = { ok: false as const, refusal: new Refused({ ok: false, reason: 'bad-credentials' }), accountExists: found !== null };
    if (!found?.passwordHash || !passwordOk || found.status !== 'active') return refused;
    if (found.totpSecret) {
      if (!attempt.code) return { ok: false, refusal: new Refused({ ok: false, reason: 'code-required' }), accountExists: true, rightCredential: true };
      const step = acceptedTotpStep(found.totpSecret, found.email, attempt.code.replace(/\s/g, ''), this.deps.clock.now());
      if (step === null || !(await this.deps.store.userAccounts.recordTotpStep(found.id, step))) return refused;
    }
    return { ok: true, value: found };
  }
}
