import type { Command } from 'commander';
import { listUserApprovals, revokeUserApproval } from '../operations/apps.js';
import { emailArgument } from './arguments.js';
import { endpointOptions, perform, type EndpointOptions } from './endpoint.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, table, type OutputOptions } from './output.js';

type Options = OutputOptions & EndpointOptions & { email: string };
const at = (email: string) => `/admin/api/users/${encodeURIComponent(email)}/approvals`;

/** `users approvals`, `users revoke-approval`: the apps an API user approved, and taking one back for them (issue 34). */
export function registerUserApprovalCommands(users: Command): void {
  endpointOptions(
    users
      .command('approvals')
      .description('list the apps an API user approved and has not revoked, with their scopes and last use')
      .requiredOption('--email <email>', "the user's email")
      .option(JSON_FLAG, JSON_FLAG_HELP),
  ).action(async (options: Options) => {
    const email = emailArgument('--email', options.email);
    const list = await perform(options, (rt) => listUserApprovals(rt, email), { method: 'GET', path: at(email) });
    emit(options, list, () =>
      table(
        list,
        [
          { header: 'APP', value: (a) => a.name },
          { header: 'CLIENT ID', value: (a) => a.clientId },
          { header: 'SCOPES', value: (a) => a.scopes.join(' ') },
          { header: 'APPROVED', value: (a) => a.approvedAt },
          { header: 'LAST TOKEN', value: (a) => a.lastUsedAt ?? '-' },
        ],
        `${email} has approved no app`,
      ),
    );
  });

  endpointOptions(
    users
      .command('revoke-approval')
      .description("revoke an API user's approval of an app: every token the app got for the user stops working (the user may approve it again)")
      .requiredOption('--email <email>', "the user's email")
      .requiredOption('--client-id <clientId>', "the app's client id (see: users approvals)")
      .option(JSON_FLAG, JSON_FLAG_HELP),
  ).action(async (options: Options & { clientId: string }) => {
    const email = emailArgument('--email', options.email);
    const { clientId } = options;
    const revoked = await perform(options, (rt, by) => revokeUserApproval(rt, email, clientId, by), {
      method: 'POST',
      path: `${at(email)}/${encodeURIComponent(clientId)}/revoke`,
    });
    emit(options, revoked, () => `revoked ${revoked.email}'s approval of ${revoked.clientId} (${revoked.revokedGrants} grant${revoked.revokedGrants === 1 ? '' : 's'}): its tokens no longer work`);
  });
}
