import type { Command } from 'commander';
import { emailArgument } from './arguments.js';
import { adminJson } from './admins-view.js';
import { withRuntime } from './context.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, type OutputOptions } from './output.js';

/** `admins totp-reset`: a lost phone; the admin signs in with the password alone until they enrol again. */
export function registerAdminsTotpResetCommand(admins: Command): void {
  admins
    .command('totp-reset')
    .description("turn an admin's TOTP second factor off (a lost phone); they can enrol again once signed in")
    .requiredOption('--email <email>', "the admin's email")
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions & { email: string }) => {
      const email = emailArgument('--email', options.email);
      const admin = await withRuntime((rt, by) => rt.store.admins.resetTotp(email, by));
      emit(options, adminJson(admin), () => `${admin.email} signs in with the password alone now; TOTP can be enrolled again from the console`);
    });
}
