import type { Command } from 'commander';
import type { Member } from '../store/store.js';
import { emailArgument } from './arguments.js';
import { resolveWorkspace, workspaceArgument, WORKSPACE_OPTION, WORKSPACE_OPTION_HELP } from './workspace-argument.js';
import { withRuntime } from './context.js';
import { emit, isoTime, JSON_FLAG, JSON_FLAG_HELP, table, type OutputOptions } from './output.js';

const memberJson = (m: Member) => ({ workspaceId: m.workspaceId, email: m.email, addedAt: isoTime(m.addedAt) });

type MemberOptions = OutputOptions & { workspace: string; email: string };

/**
 * `members`: the emails that may read a workspace's data. Checked on every API request, so
 * a change holds on the next one.
 */
export function registerMembers(program: Command): void {
  const members = program.command('members').description('workspace members (by email)');

  members
    .command('add')
    .description('let an email read a workspace')
    .requiredOption(WORKSPACE_OPTION, WORKSPACE_OPTION_HELP)
    .requiredOption('--email <email>', "the member's email (the API user's email)")
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: MemberOptions) => {
      const workspace = workspaceArgument(options.workspace);
      const email = emailArgument('--email', options.email);
      const { member, userExists } = await withRuntime(async (rt, by) => ({
        member: await rt.store.directory.addMember(await resolveWorkspace(rt.store.directory, workspace), email, by),
        userExists: (await rt.store.credentials.findUserByEmail(email)) !== null,
      }));
      emit(options, { ...memberJson(member), userExists }, () =>
        [
          `added ${member.email} to workspace ${member.workspaceId}`,
          // Membership is by email, so adding first is fine; but a typo would go unnoticed.
          ...(userExists ? [] : [`note: no API user has this email yet; register one with: results-api users create --email ${member.email}`]),
        ].join('\n'),
      );
    });

  members
    .command('remove')
    .description("stop an email reading a workspace (from the server's next request on)")
    .requiredOption(WORKSPACE_OPTION, WORKSPACE_OPTION_HELP)
    .requiredOption('--email <email>', "the member's email")
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: MemberOptions) => {
      const workspace = workspaceArgument(options.workspace);
      const email = emailArgument('--email', options.email);
      const workspaceId = await withRuntime(async (rt, by) => {
        const id = await resolveWorkspace(rt.store.directory, workspace);
        await rt.store.directory.removeMember(id, email, by);
        return id;
      });
      emit(options, { workspaceId, email, removed: true }, () => `removed ${email} from workspace ${workspaceId}`);
    });

  members
    .command('list')
    .description("list a workspace's members")
    .requiredOption(WORKSPACE_OPTION, WORKSPACE_OPTION_HELP)
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions & { workspace: string }) => {
      const workspace = workspaceArgument(options.workspace);
      const list = await withRuntime(async (rt) => rt.store.directory.listMembers(await resolveWorkspace(rt.store.directory, workspace)));
      emit(options, list.map(memberJson), () =>
        table(
          list,
          [
            { header: 'EMAIL', value: (m) => m.email },
            { header: 'ADDED', value: (m) => isoTime(m.addedAt)! },
          ],
          'no members',
        ),
      );
    });
}
