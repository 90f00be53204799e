import type { AdminRole } from './session.js';

/** A role as people read it. */
export function roleName(role: AdminRole): string {
  return role === 'account-admin' ? 'account admin' : role;
}
