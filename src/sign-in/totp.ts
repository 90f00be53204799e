import { Secret, TOTP } from 'otpauth';

/** RFC 6238 TOTP as every authenticator app reads it: SHA-1, 6 digits, 30-second steps. */
const PERIOD_SECONDS = 30;

/** What an authenticator app shows beside the code: the admin console's or an API user's account. */
export type TotpIssuer = 'results-api admin' | 'results-api';

const totpOf = (secret: string, email: string, issuer: TotpIssuer = 'results-api admin') =>
  new TOTP({ issuer, label: email, algorithm: 'SHA1', digits: 6, period: PERIOD_SECONDS, secret: Secret.fromBase32(secret) });

/** The otpauth:// URI of a secret, which authenticator apps read. */
export const totpUri = (secret: string, email: string, issuer?: TotpIssuer): string => totpOf(secret, email, issuer).toString();

/** A new 160-bit secret (RFC 4226's recommended length) and the otpauth:// URI apps scan. */
export function newTotpSecret(email: string, issuer?: TotpIssuer): { secret: string; uri: string } {
  const secret = new Secret({ size: 20 }).base32;
  return { secret, uri: totpOf(secret, email, issuer).toString() };
}

/**
 * The time step a code belongs to, if it is the code of the current step or one either side
 * (a phone's clock drifts); null otherwise. The caller refuses a step already used (RFC 6238 §5.2).
 */
export function acceptedTotpStep(secret: string, email: string, code: string, now: number): number | null {
  const delta = totpOf(secret, email).validate({ token: code, timestamp: now, window: 1 });
  return delta === null ? null : Math.floor(now / 1000 / PERIOD_SECONDS) + delta;
}

/** The code of the step `now` falls in (tests, and nothing else, compute codes). */
export const totpCode = (secret: string, now: number): string => totpOf(secret, 'x').generate({ timestamp: now });
