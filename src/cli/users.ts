import type { Command } from 'commander';
import { createUser, listUsers, setUserStatus } from '../operations/users.js';
import type { User } from '../store/store.js';
import { emailArgument } from './arguments.js';
import { registerUserApprovalCommands } from './users-approvals.js';
import { registerUserSignInCommands } from './users-sign-in.js';
import { endpointOptions, perform, type EndpointOptions } from './endpoint.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, table, type OutputOptions } from './output.js';

type Options = OutputOptions & EndpointOptions;
const at = (email: string) => `/admin/api/users/${encodeURIComponent(email)}`;

/** `users`: API users, identified by email (the email that must be a member of a workspace). */
export function registerUsers(program: Command): void {
  const users = program.command('users').description('API users (identified by email)');

  endpointOptions(
    users
      .command('create')
      .description('register an API user')
      .requiredOption('--email <email>', "the user's email; the same email must be a workspace member")
      .option(JSON_FLAG, JSON_FLAG_HELP),
  ).action(async (options: Options & { email: string }) => {
    const email = emailArgument('--email', options.email);
    const user = await perform(options, (rt, by) => createUser(rt, email, by), { method: 'POST', path: '/admin/api/users', body: { email } });
    emit(options, user, () => `created user ${user.email} (id ${user.id})`);
  });

  endpointOptions(users.command('list').description('list API users').option(JSON_FLAG, JSON_FLAG_HELP)).action(async (options: Options) => {
    const list = await perform(options, (rt) => listUsers(rt), { method: 'GET', path: '/admin/api/users' });
    emit(options, list, () =>
      table(
        list,
        [
          { header: 'EMAIL', value: (u) => u.email },
          { header: 'STATUS', value: (u) => u.status },
          { header: 'CREATED', value: (u) => u.createdAt },
          { header: 'ID', value: (u) => u.id },
        ],
        'no users',
      ),
    );
  });

  const setStatus = (verb: 'disable' | 'enable', status: User['status'], description: string) =>
    endpointOptions(
      users.command(verb).description(description).requiredOption('--email <email>', "the user's email").option(JSON_FLAG, JSON_FLAG_HELP),
    ).action(async (options: Options & { email: string }) => {
      const email = emailArgument('--email', options.email);
      const user = await perform(options, (rt, by) => setUserStatus(rt, email, status, by), { method: 'POST', path: `${at(email)}/${verb}` });
      emit(options, user, () => `${user.email} is now ${user.status}`);
    });
  setStatus('disable', 'disabled', "disable an API user: its tokens stop working on the next request, and it can't get new ones");
  setStatus('enable', 'active', 'enable a disabled API user again');
  registerUserSignInCommands(users);
  registerUserApprovalCommands(users);
}
