import type { Command } from 'commander';
import { setupLinkUnavailable } from '../admin/setup-links.js';
import { generateAdminClientId } from '../admin/admin-client-ids.js';
import { generateClientSecret } from '../oauth/client-secrets.js';
import { emailArgument } from './arguments.js';
import { adminClientJson } from './admins-view.js';
import { withRuntime } from './context.js';
import { CliError, emit, JSON_FLAG, JSON_FLAG_HELP, type OutputOptions } from './output.js';
import { SECRET_SHOWN_ONCE, secretLines } from './secret-lines.js';

/** `admins clients create`: client credentials for scripts and --endpoint, acting with an admin's role. */
export function registerAdminsClientsCreateCommand(clients: Command): void {
  clients
    .command('create')
    .description("issue an admin API client to an admin (the secret is printed once); it acts with the admin's role")
    .requiredOption('--email <email>', 'the admin it acts as')
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions & { email: string }) => {
      const email = emailArgument('--email', options.email);
      const clientSecret = generateClientSecret();
      const { client, endpoint } = await withRuntime(async (rt, by) => {
        const admin = await rt.store.admins.findAdminForSignIn(email);
        if (!admin) throw new CliError(`no admin with email ${email}`);
        const client = await rt.store.admins.createClient({ clientId: generateAdminClientId(), adminId: admin.id, secretHash: rt.hasher.hash(clientSecret) }, by);
        return { client, endpoint: setupLinkUnavailable(rt.config) ? null : rt.config.admin!.url };
      });
      emit(options, { ...adminClientJson(client), clientSecret, tokenUrl: endpoint && `${endpoint}/admin/oauth2/v1/token`, endpoint }, () =>
        [
          `Issued an admin API client to ${client.admin.email} (${client.admin.role}):`,
          '',
          secretLines(client.clientId, clientSecret),
          '',
          SECRET_SHOWN_ONCE,
          ...(endpoint
            ? ['', 'Use it from a shell without DATABASE_URL:', `  RESULTS_API_ENDPOINT=${endpoint} RESULTS_API_ADMIN_CLIENT_ID=${client.clientId} RESULTS_API_ADMIN_CLIENT_SECRET=... results-api users list`]
            : []),
        ].join('\n'),
      );
    });
}
