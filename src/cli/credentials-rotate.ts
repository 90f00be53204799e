import type { Command } from 'commander';
import { rotateCredential } from '../operations/credentials.js';
import { clientIdArgument } from './arguments.js';
import { endpointOptions, perform, type EndpointOptions } from './endpoint.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, type OutputOptions } from './output.js';
import { SECRET_SHOWN_ONCE, secretLines } from './secret-lines.js';

type Options = OutputOptions & EndpointOptions;

/** `credentials rotate`: a second secret (printed once); the previous one keeps working for the grace period. */
export function registerCredentialsRotateCommand(credentials: Command): void {
  endpointOptions(
    credentials
      .command('rotate')
      .description(
        'issue a second secret for a credential (printed once); the previous one keeps working for the grace period ' +
          '(SECRET_ROTATION_GRACE_SECONDS) or until retire-previous',
      )
      .requiredOption('--client-id <clientId>', 'the credential to rotate')
      .option('--retire-previous-now', 'the previous secret stops working at once (no grace period)')
      .option(JSON_FLAG, JSON_FLAG_HELP),
  ).action(async (options: Options & { clientId: string; retirePreviousNow?: boolean }) => {
    const clientId = clientIdArgument('--client-id', options.clientId);
    const retireNow = options.retirePreviousNow === true;
    const rotated = await perform(options, (rt, by) => rotateCredential(rt, clientId, retireNow, by), {
      method: 'POST',
      path: `/admin/api/credentials/${clientId}/rotate`,
      body: { retirePreviousNow: retireNow },
    });
    const previous =
      rotated.previousSecretExpiresAt > rotated.rotatedAt
        ? `The previous secret keeps working until ${rotated.previousSecretExpiresAt}; to end that sooner: ` +
          `results-api credentials retire-previous --client-id ${clientId}`
        : 'The previous secret no longer works.';
    emit(options, rotated, () =>
      [`Rotated the secret of ${clientId} (${rotated.email}):`, '', secretLines(clientId, rotated.clientSecret), '', previous, SECRET_SHOWN_ONCE].join('\n'),
    );
  });
}
