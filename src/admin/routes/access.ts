import type { FastifyRequest } from 'fastify';
import { conflict } from '../../store/conflicts.js';
import type { Test } from '../../store/store.js';
import type { Store } from '../../store/open-store.js';
import { callerOf, requireRole, requireWorkspaceAccess, type AdminCaller } from '../caller.js';
import { adminProblems } from '../problems.js';

/**
 * A test's members-and-tests scope is its workspace's: an operator, or an account admin who
 * administers that workspace. Anyone else is told no such test exists (the same 404 as an
 * unknown id), so a workspace's tests cannot be discovered from outside it.
 */
export async function requireTestAccess(request: FastifyRequest, store: Store, testId: string): Promise<{ caller: AdminCaller; test: Test }> {
  const caller = callerOf(request);
  if (caller.admin.role === 'support') throw adminProblems.forbidden(caller.admin.role);
  const test = await store.directory.getTest(testId);
  if (!test) throw conflict.noTest(testId);
  try {
    await requireWorkspaceAccess(request, store, test.workspaceId);
  } catch {
    throw conflict.noTest(testId);
  }
  return { caller, test };
}

/**
 * A session, clip or reel found by its id alone, if it is of a test the caller may see (as
 * requireTestAccess decides); `missing()` both for none and for one they may not see.
 */
export async function requireOfVisibleTest<T extends { testId: string }>(
  request: FastifyRequest,
  store: Store,
  resource: T | null,
  missing: () => Error,
): Promise<{ caller: AdminCaller; resource: T }> {
  requireRole(request, 'account-admin');
  if (!resource) throw missing();
  try {
    return { caller: (await requireTestAccess(request, store, resource.testId)).caller, resource };
  } catch {
    throw missing();
  }
}
