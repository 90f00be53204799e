import type { Command } from 'commander';
import { revokeCredential } from '../operations/credentials.js';
import { clientIdArgument } from './arguments.js';
import { endpointOptions, perform, type EndpointOptions } from './endpoint.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, type OutputOptions } from './output.js';

type Options = OutputOptions & EndpointOptions;

/** `credentials revoke`: the credential's tokens stop working on their next request. */
export function registerCredentialsRevokeCommand(credentials: Command): void {
  endpointOptions(
    credentials
      .command('revoke')
      .description('revoke a credential: its tokens stop working on the next request')
      .requiredOption('--client-id <clientId>', 'the credential to revoke')
      .option(JSON_FLAG, JSON_FLAG_HELP),
  ).action(async (options: Options & { clientId: string }) => {
    const clientId = clientIdArgument('--client-id', options.clientId);
    const result = await perform(options, (rt, by) => revokeCredential(rt, clientId, by), { method: 'POST', path: `/admin/api/credentials/${clientId}/revoke` });
    emit(options, result, () =>
      result.alreadyRevoked
        ? `${result.clientId} (${result.email}) was already revoked at ${result.revokedAt}; nothing changed`
        : `revoked ${result.clientId} (${result.email}); its tokens no longer work`,
    );
  });
}
