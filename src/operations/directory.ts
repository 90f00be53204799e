import type { Static } from '@sinclair/typebox';
import type { Admin } from '../store/admins.js';
import type { Actor, Test, TestInput, TestPlan } from '../store/store.js';
import type { OperationDeps } from './deps.js';
import {
  memberView,
  testView,
  workspaceView,
  type AddedMember,
  type ListedTest,
  type MemberView,
  type RemovedMember,
  type TestView,
  type WorkspaceView,
} from './views.js';

/** Workspaces, members and tests. Shared by the CLI's workspaces/members/tests commands and the admin API. */

export const createWorkspace = async (d: OperationDeps, input: { id: string; name: string }, by: Actor): Promise<Static<typeof WorkspaceView>> =>
  workspaceView(await d.store.directory.createWorkspace(input, by));

/** Every workspace, or only those whose ids are in `only`. */
export async function listWorkspaces(d: OperationDeps, only?: readonly string[]): Promise<Static<typeof WorkspaceView>[]> {
  const all = await d.store.directory.listWorkspaces();
  return (only === undefined ? all : all.filter((w) => only.includes(w.id))).map(workspaceView);
}

/** The workspaces `admin` works in: every one for an operator, the assigned ones for an account admin. */
export async function listWorkspacesOf(d: OperationDeps, admin: Admin): Promise<Static<typeof WorkspaceView>[]> {
  return admin.role === 'operator' ? listWorkspaces(d) : listWorkspaces(d, await d.store.admins.assignedWorkspaces(admin.id));
}

export async function addMember(d: OperationDeps, workspaceId: string, email: string, by: Actor): Promise<Static<typeof AddedMember>> {
  const member = await d.store.directory.addMember(workspaceId, email, by);
  return { ...memberView(member), userExists: (await d.store.credentials.findUserByEmail(email)) !== null };
}

export async function removeMember(d: OperationDeps, workspaceId: string, email: string, by: Actor): Promise<Static<typeof RemovedMember>> {
  await d.store.directory.removeMember(workspaceId, email, by);
  return { workspaceId, email, removed: true };
}

export const listMembers = async (d: OperationDeps, workspaceId: string): Promise<Static<typeof MemberView>[]> =>
  (await d.store.directory.listMembers(workspaceId)).map(memberView);

export const createTest = async (d: OperationDeps, input: TestInput, by: Actor): Promise<Static<typeof TestView>> =>
  testView(await d.store.directory.createTest(input, by));

/** A test with its sessions counted by status (operators see every status; the API lists COMPLETE only). */
export const describeTest = async (d: OperationDeps, test: Test): Promise<Static<typeof ListedTest>> => ({
  ...testView(test),
  sessionsByStatus: await d.store.sessions.countSessionsByStatus(test.id),
});

/** A workspace's tests, each as describeTest gives it. */
export async function listTests(d: OperationDeps, workspaceId: string): Promise<Static<typeof ListedTest>[]> {
  return Promise.all((await d.store.directory.listTests(workspaceId)).map((t) => describeTest(d, t)));
}

export const setTestPlan = async (d: OperationDeps, testId: string, plan: TestPlan, by: Actor): Promise<Static<typeof TestView>> =>
  testView(await d.store.directory.setTestPlan(testId, plan, by));
