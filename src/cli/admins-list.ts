import type { Command } from 'commander';
import { adminJson } from './admins-view.js';
import { withRuntime } from './context.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, table, type OutputOptions } from './output.js';

/** `admins list`: every admin account, whether it is set up, and its second factor. */
export function registerAdminsListCommand(admins: Command): void {
  admins
    .command('list')
    .description('list admin accounts')
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions) => {
      const list = await withRuntime((rt) => rt.store.admins.listAdmins());
      emit(options, list.map(adminJson), () =>
        table(
          list,
          [
            { header: 'EMAIL', value: (a) => a.email },
            { header: 'ROLE', value: (a) => a.role },
            { header: 'PASSWORD', value: (a) => (a.passwordSet ? 'set' : 'awaiting setup') },
            { header: 'TOTP', value: (a) => (a.totpEnabled ? 'on' : 'off') },
            { header: 'ID', value: (a) => a.id },
          ],
          'no admins',
        ),
      );
    });
}
