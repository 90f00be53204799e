import type { Command } from 'commander';
import { createAdminWithLink } from '../admin/setup-links.js';
import { ADMIN_ROLES, type AdminRole } from '../store/admins.js';
import { emailArgument } from './arguments.js';
import { linkJson, linkText, requireLinks } from './admins-view.js';
import { withRuntime } from './context.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, usageError, type OutputOptions } from './output.js';

function roleArgument(value: string): AdminRole {
  const role = value.trim() as AdminRole;
  if (!ADMIN_ROLES.includes(role)) throw usageError(`--role must be one of ${ADMIN_ROLES.join(', ')} (got "${value}")`);
  return role;
}

/** `admins create`: an admin account and its one-time setup link. */
export function registerAdminsCreateCommand(admins: Command): void {
  admins
    .command('create')
    .description('create an admin account and print its one-time setup link (valid 24 hours)')
    .requiredOption('--email <email>', "the admin's email (their sign-in name)")
    .requiredOption('--role <role>', `one of ${ADMIN_ROLES.join(', ')}`)
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions & { email: string; role: string }) => {
      const email = emailArgument('--email', options.email);
      const role = roleArgument(options.role);
      const link = await withRuntime((rt, by) => {
        requireLinks(rt);
        return createAdminWithLink(rt, { email, role }, by);
      });
      emit(options, linkJson(link), () => `created admin ${link.admin.email} (${link.admin.role})\n\n${linkText(link)}`);
    });
}
