import type { Command } from 'commander';
import { ADMIN_CLIENT_ID_PATTERN } from '../admin/admin-client-ids.js';
import { adminClientJson } from './admins-view.js';
import { withRuntime } from './context.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, usageError, type OutputOptions } from './output.js';

/** `admins clients revoke`: the client's tokens stop working on their next request. */
export function registerAdminsClientsRevokeCommand(clients: Command): void {
  clients
    .command('revoke')
    .description('revoke an admin API client: its tokens stop working on the next request')
    .requiredOption('--client-id <clientId>', 'the admin API client')
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions & { clientId: string }) => {
      const clientId = options.clientId.trim();
      if (!ADMIN_CLIENT_ID_PATTERN.test(clientId)) throw usageError(`--client-id must be an admin client id: "adm" followed by 17 letters or digits (got "${options.clientId}")`);
      const client = await withRuntime((rt, by) => rt.store.admins.revokeClient(clientId, by));
      emit(options, adminClientJson(client), () => `revoked admin API client ${client.clientId} (${client.admin.email})`);
    });
}
