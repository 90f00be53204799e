import type { Command } from 'commander';
import { issueCredential, listCredentials, retirePreviousSecret, revokeCredential, rotateCredential } from '../operations/credentials.js';
import { SERVER_SCOPES } from '../oauth/scope-names.js';
import { clientIdArgument, emailArgument } from './arguments.js';
import { endpointOptions, perform, type EndpointOptions } from './endpoint.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, table, type OutputOptions } from './output.js';

export const SECRET_SHOWN_ONCE =
  'The client secret is shown only this once: it is not stored (only a hash of it is). ' +
  'Hand it to the user through a secure channel.';

/** The lines that show a freshly issued client id and secret. */
export function secretLines(clientId: string, clientSecret: string): string {
  return [`  client_id:     ${clientId}`, `  client_secret: ${clientSecret}`].join('\n');
}

type Options = OutputOptions & EndpointOptions;
const at = (clientId: string) => `/admin/api/credentials/${clientId}`;

/** `credentials`: client id/secret pairs of API users. The secret is printed once, never stored. */
export function registerCredentials(program: Command): void {
  const credentials = program.command('credentials').description('client credentials of API users');

  endpointOptions(
    credentials
      .command('issue')
      .description('issue a client id and secret to an API user (the secret is printed once)')
      .requiredOption('--email <email>', 'the API user to issue to')
      .option(JSON_FLAG, JSON_FLAG_HELP),
  ).action(async (options: Options & { email: string }) => {
    const email = emailArgument('--email', options.email);
    const issued = await perform(options, (rt, by) => issueCredential(rt, email, by), { method: 'POST', path: '/admin/api/credentials', body: { email } });
    emit(options, issued, () =>
      [
        `Issued a credential to ${issued.email}:`,
        '',
        secretLines(issued.clientId, issued.clientSecret),
        '',
        SECRET_SHOWN_ONCE,
        '',
        'What the user needs with it:',
        `  authorization server id: ${issued.authorizationServerId}`,
        `  token URL (Bearer, scope ${SERVER_SCOPES.custom}): ${issued.tokenUrl}`,
        `  token URL (token header, scope ${SERVER_SCOPES.default}): ${issued.defaultTokenUrl}`,
        `  Results API: ${issued.baseUrl}`,
      ].join('\n'),
    );
  });

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
      path: `${at(clientId)}/rotate`,
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

  endpointOptions(
    credentials
      .command('retire-previous')
      .description("end a rotation's grace period now: only the newest secret keeps working")
      .requiredOption('--client-id <clientId>', 'the credential whose previous secret to retire')
      .option(JSON_FLAG, JSON_FLAG_HELP),
  ).action(async (options: Options & { clientId: string }) => {
    const clientId = clientIdArgument('--client-id', options.clientId);
    const result = await perform(options, (rt, by) => retirePreviousSecret(rt, clientId, by), { method: 'POST', path: `${at(clientId)}/retire-previous` });
    emit(options, result, () =>
      result.retired > 0
        ? `retired the previous secret of ${clientId} (${result.email}); only the newest one works now`
        : `${clientId} (${result.email}) has no previous secret in a grace period; nothing changed`,
    );
  });

  endpointOptions(
    credentials
      .command('revoke')
      .description('revoke a credential: its tokens stop working on the next request')
      .requiredOption('--client-id <clientId>', 'the credential to revoke')
      .option(JSON_FLAG, JSON_FLAG_HELP),
  ).action(async (options: Options & { clientId: string }) => {
    const clientId = clientIdArgument('--client-id', options.clientId);
    const result = await perform(options, (rt, by) => revokeCredential(rt, clientId, by), { method: 'POST', path: `${at(clientId)}/revoke` });
    emit(options, result, () =>
      result.alreadyRevoked
        ? `${result.clientId} (${result.email}) was already revoked at ${result.revokedAt}; nothing changed`
        : `revoked ${result.clientId} (${result.email}); its tokens no longer work`,
    );
  });

  endpointOptions(
    credentials
      .command('list')
      .description('list credentials (never their secrets)')
      .option('--email <email>', "only this API user's credentials")
      .option(JSON_FLAG, JSON_FLAG_HELP),
  ).action(async (options: Options & { email?: string }) => {
    const email = options.email === undefined ? undefined : emailArgument('--email', options.email);
    const list = await perform(options, (rt) => listCredentials(rt, email), {
      method: 'GET',
      path: `/admin/api/credentials${email === undefined ? '' : `?email=${encodeURIComponent(email)}`}`,
    });
    emit(options, list, () =>
      table(
        list,
        [
          { header: 'CLIENT_ID', value: (c) => c.clientId },
          { header: 'EMAIL', value: (c) => c.email },
          { header: 'STATUS', value: (c) => c.status },
          { header: 'SECRETS', value: (c) => String(c.activeSecrets) },
          { header: 'CREATED', value: (c) => c.createdAt },
          { header: 'LAST_USED', value: (c) => c.lastUsedAt ?? '-' },
        ],
        'no credentials',
      ),
    );
  });
}
