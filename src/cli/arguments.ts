import { CLIENT_ID_PATTERN } from '../oauth/client-secrets.js';
import { isEmail } from '../store/email.js';
import { isUuid, uuidKey } from '../store/uuid.js';
import { usageError } from './output.js';

/**
 * Checks of command-line values, made before any command touches the database, so a typo
 * changes nothing. Each returns the value in the form the store expects.
 */

export function emailArgument(option: string, value: string): string {
  const email = value.trim();
  if (!isEmail(email)) throw usageError(`${option} must be an email address (got "${value}")`);
  return email;
}

export function uuidArgument(option: string, value: string): string {
  const id = value.trim();
  if (!isUuid(id)) throw usageError(`${option} must be a UUID such as 6f1c1a52-3f0e-4a59-9d1f-0d9b1b7d2a11 (got "${value}")`);
  return uuidKey(id);
}

export function clientIdArgument(option: string, value: string): string {
  const clientId = value.trim();
  if (!CLIENT_ID_PATTERN.test(clientId)) {
    throw usageError(`${option} must be a client id: "0oa" followed by 17 letters or digits (got "${value}")`);
  }
  return clientId;
}

/** A display name: not blank, no control characters, at most `max` characters. */
export function nameArgument(option: string, value: string, max = 200): string {
  const name = value.trim();
  // eslint-disable-next-line no-control-regex
  if (name === '' || name.length > max || /[\u0000-\u001f\u007f]/.test(name)) {
    throw usageError(`${option} must be 1-${max} printable characters (got "${value}")`);
  }
  return name;
}

/** A whole number from 1 to `max`, written in decimal digits only. */
export function positiveIntegerArgument(option: string, value: string, max: number): number {
  const text = value.trim();
  const number = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(number) || number < 1 || number > max) {
    throw usageError(`${option} must be a whole number from 1 to ${max} (got "${value}")`);
  }
  return number;
}

const AGO = /^(\d{1,6})([mhd])$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** A moment: an ISO 8601 time with its zone, or a time ago from `now` (`30m`, `24h`, `7d`). Epoch milliseconds. */
export function sinceArgument(option: string, value: string, now: number): number {
  const text = value.trim();
  const ago = AGO.exec(text);
  if (ago) return now - Number(ago[1]) * UNIT_MS[ago[2] as keyof typeof UNIT_MS];
  const at = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(at)) {
    throw usageError(`${option} must be an ISO 8601 time such as 2026-11-23T09:00:00Z, or a time ago such as 30m, 24h or 7d (got "${value}")`);
  }
  return at;
}
