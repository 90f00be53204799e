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
