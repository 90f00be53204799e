import type { Command } from 'commander';
import { adminClientJson } from './admins-view.js';
import { withRuntime } from './context.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, table, type OutputOptions } from './output.js';
import { isoTime } from '../iso-time.js';

/** `admins clients list`: every admin API client, never its secret. */
export function registerAdminsClientsListCommand(clients: Command): void {
  clients
    .command('list')
    .description('list admin API clients (never their secrets)')
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions) => {
      const list = await withRuntime((rt) => rt.store.admins.listClients());
      emit(options, list.map(adminClientJson), () =>
        table(
          list,
          [
            { header: 'CLIENT_ID', value: (c) => c.clientId },
            { header: 'ADMIN', value: (c) => c.admin.email },
            { header: 'ROLE', value: (c) => c.admin.role },
            { header: 'STATUS', value: (c) => (c.revokedAt === null ? 'active' : 'revoked') },
            { header: 'CREATED', value: (c) => isoTime(c.createdAt) },
          ],
          'no admin API clients',
        ),
      );
    });
}
