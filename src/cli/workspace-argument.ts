import { isUuid, uuidKey } from '../store/uuid.js';
import type { DirectoryRepository } from '../store/directory.js';
import { nameArgument } from './arguments.js';
import type { AdminApiCall } from './endpoint.js';
import { CliError } from './output.js';

/** A workspace as a command names it: its id, or its name when no other workspace has that name. */
export type WorkspaceRef = { id: string } | { name: string };

export const WORKSPACE_OPTION = '--workspace <uuid|name>';
export const WORKSPACE_OPTION_HELP = 'the workspace: its id, or its name if unique';

/** Checked before the database is opened: a UUID, or a name a workspace could have. */
export function workspaceArgument(value: string): WorkspaceRef {
  const text = value.trim();
  return isUuid(text) ? { id: uuidKey(text) } : { name: nameArgument('--workspace', text) };
}

/** The workspace's id; a name must match exactly one workspace (ignoring case). */
export async function resolveWorkspace(directory: Pick<DirectoryRepository, 'listWorkspaces'>, ref: WorkspaceRef): Promise<string> {
  return 'id' in ref ? ref.id : matchWorkspaceName(await directory.listWorkspaces(), ref.name);
}

/** The same through the admin API (which lists only the workspaces the admin may see). */
export async function resolveWorkspaceThrough(api: AdminApiCall, ref: WorkspaceRef): Promise<string> {
  return 'id' in ref ? ref.id : matchWorkspaceName((await api({ method: 'GET', path: '/admin/api/workspaces' })) as { id: string; name: string }[], ref.name);
}

function matchWorkspaceName(workspaces: readonly { id: string; name: string }[], name: string): string {
  const ref = { name };
  const wanted = ref.name.toLowerCase();
  const matches = workspaces.filter((w) => w.name.trim().toLowerCase() === wanted);
  if (matches.length === 1) return matches[0]!.id;
  if (matches.length === 0) throw new CliError(`no workspace named "${ref.name}" (results-api workspaces list shows them)`);
  throw new CliError(`${matches.length} workspaces are named "${ref.name}": name one by its id (${matches.map((w) => w.id).join(', ')})`);
}
