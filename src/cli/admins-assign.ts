import type { Command } from 'commander';
import { emailArgument, uuidArgument } from './arguments.js';
import { withRuntime } from './context.js';
import { CliError, emit, JSON_FLAG, JSON_FLAG_HELP, type OutputOptions } from './output.js';

/** `admins assign` or `admins unassign`: the workspaces an account admin administers. */
function registerAssignment(admins: Command, verb: 'assign' | 'unassign', description: string): void {
  admins
    .command(verb)
    .description(description)
    .requiredOption('--email <email>', 'the account admin')
    .requiredOption('--workspace <uuid>', 'the workspace')
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions & { email: string; workspace: string }) => {
      const email = emailArgument('--email', options.email);
      const workspaceId = uuidArgument('--workspace', options.workspace);
      const workspaces = await withRuntime(async (rt, by) => {
        const admin = await rt.store.admins.findAdminForSignIn(email);
        if (!admin) throw new CliError(`no admin with email ${email}`);
        if (verb === 'assign') await rt.store.admins.assignWorkspace(admin.id, workspaceId, by);
        else await rt.store.admins.unassignWorkspace(admin.id, workspaceId, by);
        return rt.store.admins.assignedWorkspaces(admin.id);
      });
      emit(options, { email, workspaces }, () =>
        verb === 'assign' ? `${email} now administers workspace ${workspaceId}` : `${email} no longer administers workspace ${workspaceId}`,
      );
    });
}

export function registerAdminsAssignCommands(admins: Command): void {
  registerAssignment(admins, 'assign', 'let an account admin administer a workspace (its members and tests)');
  registerAssignment(admins, 'unassign', 'stop an account admin administering a workspace');
}
