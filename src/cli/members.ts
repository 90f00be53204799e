import type { Command } from 'commander';
import { addMember, listMembers, removeMember } from '../operations/directory.js';
import { emailArgument } from './arguments.js';
import { endpointOptions, perform, type EndpointOptions } from './endpoint.js';
import { resolveWorkspace, resolveWorkspaceThrough, workspaceArgument, WORKSPACE_OPTION, WORKSPACE_OPTION_HELP } from './workspace-argument.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, table, type OutputOptions } from './output.js';

type MemberOptions = OutputOptions & EndpointOptions & { workspace: string; email: string };
const membersOf = (workspaceId: string) => `/admin/api/workspaces/${workspaceId}/members`;

/**
 * `members`: the emails that may read a workspace's data. Checked on every API request, so
 * a change holds on the next one.
 */
export function registerMembers(program: Command): void {
  const members = program.command('members').description('workspace members (by email)');

  endpointOptions(
    members
      .command('add')
      .description('let an email read a workspace')
      .requiredOption(WORKSPACE_OPTION, WORKSPACE_OPTION_HELP)
      .requiredOption('--email <email>', "the member's email (the API user's email)")
      .option(JSON_FLAG, JSON_FLAG_HELP),
  ).action(async (options: MemberOptions) => {
    const workspace = workspaceArgument(options.workspace);
    const email = emailArgument('--email', options.email);
    const member = await perform(
      options,
      async (rt, by) => addMember(rt, await resolveWorkspace(rt.store.directory, workspace), email, by),
      async (api) => api({ method: 'POST', path: membersOf(await resolveWorkspaceThrough(api, workspace)), body: { email } }),
    );
    emit(options, member, () =>
      [
        `added ${member.email} to workspace ${member.workspaceId}`,
        // Membership is by email, so adding first is fine; but a typo would go unnoticed.
        ...(member.userExists ? [] : [`note: no API user has this email yet; register one with: results-api users create --email ${member.email}`]),
      ].join('\n'),
    );
  });

  endpointOptions(
    members
      .command('remove')
      .description("stop an email reading a workspace (from the server's next request on)")
      .requiredOption(WORKSPACE_OPTION, WORKSPACE_OPTION_HELP)
      .requiredOption('--email <email>', "the member's email")
      .option(JSON_FLAG, JSON_FLAG_HELP),
  ).action(async (options: MemberOptions) => {
    const workspace = workspaceArgument(options.workspace);
    const email = emailArgument('--email', options.email);
    const removed = await perform(
      options,
      async (rt, by) => removeMember(rt, await resolveWorkspace(rt.store.directory, workspace), email, by),
      async (api) => api({ method: 'DELETE', path: `${membersOf(await resolveWorkspaceThrough(api, workspace))}/${encodeURIComponent(email)}` }),
    );
    emit(options, removed, () => `removed ${email} from workspace ${removed.workspaceId}`);
  });

  endpointOptions(
    members
      .command('list')
      .description("list a workspace's members")
      .requiredOption(WORKSPACE_OPTION, WORKSPACE_OPTION_HELP)
      .option(JSON_FLAG, JSON_FLAG_HELP),
  ).action(async (options: OutputOptions & EndpointOptions & { workspace: string }) => {
    const workspace = workspaceArgument(options.workspace);
    const list = await perform(
      options,
      async (rt) => listMembers(rt, await resolveWorkspace(rt.store.directory, workspace)),
      async (api) => api({ method: 'GET', path: membersOf(await resolveWorkspaceThrough(api, workspace)) }),
    );
    emit(options, list, () =>
      table(
        list,
        [
          { header: 'EMAIL', value: (m) => m.email },
          { header: 'ADDED', value: (m) => m.addedAt },
        ],
        'no members',
      ),
    );
  });
}
