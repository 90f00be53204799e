import type { Command } from 'commander';
import type { User } from '../store/store.js';
import { emailArgument } from './arguments.js';
import { withRuntime } from './context.js';
import { emit, isoTime, JSON_FLAG, JSON_FLAG_HELP, table, type OutputOptions } from './output.js';

const userJson = (u: User) => ({ id: u.id, email: u.email, status: u.status, createdAt: isoTime(u.createdAt) });

/** `users`: API users, identified by email (the email that must be a member of a workspace). */
export function registerUsers(program: Command): void {
  const users = program.command('users').description('API users (identified by email)');

  users
    .command('create')
    .description('register an API user')
    .requiredOption('--email <email>', "the user's email; the same email must be a workspace member")
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions & { email: string }) => {
      const email = emailArgument('--email', options.email);
      const user = await withRuntime((rt, by) => rt.store.credentials.createUser(email, by));
      emit(options, userJson(user), () => `created user ${user.email} (id ${user.id})`);
    });

  users
    .command('list')
    .description('list API users')
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions) => {
      const list = await withRuntime((rt) => rt.store.credentials.listUsers());
      emit(options, list.map(userJson), () =>
        table(
          list,
          [
            { header: 'EMAIL', value: (u) => u.email },
            { header: 'STATUS', value: (u) => u.status },
            { header: 'CREATED', value: (u) => isoTime(u.createdAt)! },
            { header: 'ID', value: (u) => u.id },
          ],
          'no users',
        ),
      );
    });

  const setStatus = (verb: 'disable' | 'enable', status: User['status'], description: string) =>
    users
      .command(verb)
      .description(description)
      .requiredOption('--email <email>', "the user's email")
      .option(JSON_FLAG, JSON_FLAG_HELP)
      .action(async (options: OutputOptions & { email: string }) => {
        const email = emailArgument('--email', options.email);
        const user = await withRuntime((rt, by) => rt.store.credentials.setUserStatus(email, status, by));
        emit(options, userJson(user), () => `${user.email} is now ${user.status}`);
      });
  setStatus('disable', 'disabled', "disable an API user: its tokens stop working on the next request, and it can't get new ones");
  setStatus('enable', 'active', 'enable a disabled API user again');
}
