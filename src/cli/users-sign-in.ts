import type { Command } from 'commander';
import { issueUserSetupLink, resetUserTotp, setUserPassword, type UserSetupLinkView } from '../operations/user-sign-in.js';
import { emailArgument } from './arguments.js';
import { endpointOptions, perform, type EndpointOptions } from './endpoint.js';
import { CliError, emit, JSON_FLAG, JSON_FLAG_HELP, type OutputOptions } from './output.js';
import { readStdin } from './stdin.js';

type Options = OutputOptions & EndpointOptions & { email: string };
const at = (email: string) => `/admin/api/users/${encodeURIComponent(email)}`;

const linkText = (link: UserSetupLinkView, what: string): string =>
  [
    `${what} ${link.user.email}${link.created ? ' (new user)' : ''}. One-time link, valid until ${link.expiresAt}:`,
    `  ${link.setupLink}`,
    'Send it to the user only: whoever opens it sets the password. A new link replaces it.',
  ].join('\n');

/** `users invite`, `users reset-link`, `users set-password`, `users totp-reset`: how API users sign in (issue 34). */
export function registerUserSignInCommands(users: Command): void {
  endpointOptions(
    users
      .command('invite')
      .description('print a one-time link with which an API user chooses a password (creates the user if new)')
      .requiredOption('--email <email>', "the user's email; the same email must be a workspace member to read anything")
      .option(JSON_FLAG, JSON_FLAG_HELP),
  ).action(async (options: Options) => {
    const email = emailArgument('--email', options.email);
    const link = await perform(options, (rt, by) => issueUserSetupLink(rt, email, 'invite', by), { method: 'POST', path: '/admin/api/users/invitations', body: { email } });
    emit(options, link, () => linkText(link, 'Invited'));
  });

  endpointOptions(
    users
      .command('reset-link')
      .description('print a new one-time link with which an existing API user chooses a new password (the earlier link stops working)')
      .requiredOption('--email <email>', "the user's email")
      .option(JSON_FLAG, JSON_FLAG_HELP),
  ).action(async (options: Options) => {
    const email = emailArgument('--email', options.email);
    const link = await perform(options, (rt, by) => issueUserSetupLink(rt, email, 'reset', by), { method: 'POST', path: `${at(email)}/setup-link` });
    emit(options, link, () => linkText(link, 'Password reset link for'));
  });

  endpointOptions(
    users
      .command('set-password')
      .description("set an API user's password, read from standard input (one line; for scripts and tests); signs the user out everywhere")
      .requiredOption('--email <email>', "the user's email")
      .option(JSON_FLAG, JSON_FLAG_HELP),
  ).action(async (options: Options) => {
    const email = emailArgument('--email', options.email);
    const password = (await readStdin(4096)).replace(/\r?\n$/, '');
    if (password === '') throw new CliError('stdin was empty; pipe the password into the command');
    const user = await perform(options, (rt, by) => setUserPassword(rt, email, password, by), { method: 'PUT', path: `${at(email)}/password`, body: { password } });
    emit(options, user, () => `password set for ${user.email}`);
  });

  endpointOptions(
    users
      .command('totp-reset')
      .description("turn an API user's two-step sign-in off (a lost phone); they may turn it on again after signing in")
      .requiredOption('--email <email>', "the user's email")
      .option(JSON_FLAG, JSON_FLAG_HELP),
  ).action(async (options: Options) => {
    const email = emailArgument('--email', options.email);
    const user = await perform(options, (rt, by) => resetUserTotp(rt, email, by), { method: 'POST', path: `${at(email)}/totp-reset` });
    emit(options, user, () => `two-step sign-in is off for ${user.email}`);
  });
}
