import type { Command } from 'commander';
import { retirePreviousSecret } from '../operations/credentials.js';
import { clientIdArgument } from './arguments.js';
import { endpointOptions, perform, type EndpointOptions } from './endpoint.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, type OutputOptions } from './output.js';

type Options = OutputOptions & EndpointOptions;

/** `credentials retire-previous`: a rotation's grace period ends now. */
export function registerCredentialsRetirePreviousCommand(credentials: Command): void {
  endpointOptions(
    credentials
      .command('retire-previous')
      .description("end a rotation's grace period now: only the newest secret keeps working")
      .requiredOption('--client-id <clientId>', 'the credential whose previous secret to retire')
      .option(JSON_FLAG, JSON_FLAG_HELP),
  ).action(async (options: Options & { clientId: string }) => {
    const clientId = clientIdArgument('--client-id', options.clientId);
    const result = await perform(options, (rt, by) => retirePreviousSecret(rt, clientId, by), { method: 'POST', path: `/admin/api/credentials/${clientId}/retire-previous` });
    emit(options, result, () =>
      result.retired > 0
        ? `retired the previous secret of ${clientId} (${result.email}); only the newest one works now`
        : `${clientId} (${result.email}) has no previous secret in a grace period; nothing changed`,
    );
  });
}
