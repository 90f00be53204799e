import type { Command } from 'commander';
import { renewSetupLink } from '../admin/setup-links.js';
import { emailArgument } from './arguments.js';
import { linkJson, linkText, requireLinks } from './admins-view.js';
import { withRuntime } from './context.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, type OutputOptions } from './output.js';

/** `admins setup-link`: a new one-time setup link, replacing a lost or expired one. */
export function registerAdminsSetupLinkCommand(admins: Command): void {
  admins
    .command('setup-link')
    .description('print a new one-time setup link for an admin (a lost or expired one; the earlier link stops working)')
    .requiredOption('--email <email>', "the admin's email")
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions & { email: string }) => {
      const email = emailArgument('--email', options.email);
      const link = await withRuntime((rt, by) => {
        requireLinks(rt);
        return renewSetupLink(rt, email, by);
      });
      emit(options, linkJson(link), () => linkText(link));
    });
}
