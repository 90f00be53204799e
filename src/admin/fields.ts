import { isEmail } from '../store/email.js';
import { isUuid, uuidKey } from '../store/uuid.js';
import { adminProblems } from './problems.js';

/** The CLI's argument rules (src/cli/arguments.ts) for values arriving in admin API requests. */

export function emailField(name: string, value: string): string {
  const email = value.trim();
  if (!isEmail(email)) throw adminProblems.invalid(`${name} must be an email address (got "${value.slice(0, 80)}")`);
  return email;
}

export function uuidField(name: string, value: string): string {
  const id = value.trim();
  if (!isUuid(id)) throw adminProblems.invalid(`${name} must be a UUID (got "${value.slice(0, 80)}")`);
  return uuidKey(id);
}
