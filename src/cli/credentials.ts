import type { Command } from 'commander';
import { generateClientId, generateClientSecret } from '../oauth/client-secrets.js';
import { SERVER_SCOPES } from '../oauth/scope-names.js';
import type { Runtime } from '../runtime.js';
import { emailKey } from '../store/email.js';
import type { Credential } from '../store/store.js';
import { clientIdArgument, emailArgument } from './arguments.js';
import { withRuntime } from './context.js';
import { CliError, emit, isoTime, JSON_FLAG, JSON_FLAG_HELP, table, type OutputOptions } from './output.js';

/** Never carries a secret or its hash: only what identifies and describes the credential. */
export const credentialJson = (c: Credential) => ({
  clientId: c.clientId,
  email: c.email,
  userId: c.userId,
  status: c.revokedAt === null ? 'active' : 'revoked',
  // A revoked credential's secrets no longer work, whatever their own expiry says.
  activeSecrets: c.revokedAt === null ? c.activeSecrets : 0,
  createdAt: isoTime(c.createdAt),
  lastUsedAt: isoTime(c.lastUsedAt),
  revokedAt: isoTime(c.revokedAt),
});

/** Where an API user mints tokens and reads results: what a new credential is useless without. */
const whereToUse = (rt: Runtime) => ({
  authorizationServerId: rt.servers.custom.id,
  tokenUrl: `${rt.config.authUrl}/oauth2/${rt.servers.custom.id}/v1/token`,
  defaultTokenUrl: `${rt.config.authUrl}/oauth2/default/v1/token`,
  baseUrl: rt.config.baseUrl,
});

export const SECRET_SHOWN_ONCE =
  'The client secret is shown only this once: it is not stored (only a hash of it is). ' +
  'Hand it to the user through a secure channel.';

/** The lines that show a freshly issued client id and secret. */
export function secretLines(clientId: string, clientSecret: string): string {
  return [`  client_id:     ${clientId}`, `  client_secret: ${clientSecret}`].join('\n');
}

/** `credentials`: client id/secret pairs of API users. The secret is printed once, never stored. */
export function registerCredentials(program: Command): void {
  const credentials = program.command('credentials').description('client credentials of API users');

  credentials
    .command('issue')
    .description('issue a client id and secret to an API user (the secret is printed once)')
    .requiredOption('--email <email>', 'the API user to issue to')
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions & { email: string }) => {
      const email = emailArgument('--email', options.email);
      const clientId = generateClientId();
      const clientSecret = generateClientSecret();
      const { credential, access } = await withRuntime(async (rt, by) => {
        if (!(await rt.store.credentials.findUserByEmail(email))) {
          throw new CliError(`no user with email ${email} (register it first: results-api users create --email ${email})`);
        }
        const issued = await rt.store.credentials.createCredential({ clientId, email, secretHash: rt.hasher.hash(clientSecret) }, by);
        return { credential: issued, access: whereToUse(rt) };
      });
      emit(
        options,
        { clientId, clientSecret, email: credential.email, createdAt: isoTime(credential.createdAt), ...access },
        () =>
          [
            `Issued a credential to ${credential.email}:`,
            '',
            secretLines(clientId, clientSecret),
            '',
            SECRET_SHOWN_ONCE,
            '',
            'What the user needs with it:',
            `  authorization server id: ${access.authorizationServerId}`,
            `  token URL (Bearer, scope ${SERVER_SCOPES.custom}): ${access.tokenUrl}`,
            `  token URL (token header, scope ${SERVER_SCOPES.default}): ${access.defaultTokenUrl}`,
            `  Results API: ${access.baseUrl}`,
          ].join('\n'),
      );
    });

  credentials
    .command('rotate')
    .description(
      'issue a second secret for a credential (printed once); the previous one keeps working for the grace period ' +
        '(SECRET_ROTATION_GRACE_SECONDS) or until retire-previous',
    )
    .requiredOption('--client-id <clientId>', 'the credential to rotate')
    .option('--retire-previous-now', 'the previous secret stops working at once (no grace period)')
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions & { clientId: string; retirePreviousNow?: boolean }) => {
      const clientId = clientIdArgument('--client-id', options.clientId);
      const clientSecret = generateClientSecret();
      const { credential, rotatedAt, previousExpiresAt } = await withRuntime(async (rt, by) => {
        const now = rt.clock.now();
        const retireOthersAt = options.retirePreviousNow ? now : now + rt.config.secretRotationGraceSeconds * 1000;
        const rotated = await rt.store.credentials.addCredentialSecret({ clientId, secretHash: rt.hasher.hash(clientSecret), retireOthersAt }, by);
        return { credential: rotated, rotatedAt: now, previousExpiresAt: retireOthersAt };
      });
      const previous =
        previousExpiresAt > rotatedAt
          ? `The previous secret keeps working until ${isoTime(previousExpiresAt)}; to end that sooner: ` +
            `results-api credentials retire-previous --client-id ${clientId}`
          : 'The previous secret no longer works.';
      emit(
        options,
        {
          clientId,
          clientSecret,
          email: credential.email,
          rotatedAt: isoTime(rotatedAt),
          previousSecretExpiresAt: isoTime(previousExpiresAt),
        },
        () =>
          [`Rotated the secret of ${clientId} (${credential.email}):`, '', secretLines(clientId, clientSecret), '', previous, SECRET_SHOWN_ONCE].join(
            '\n',
          ),
      );
    });

  credentials
    .command('retire-previous')
    .description("end a rotation's grace period now: only the newest secret keeps working")
    .requiredOption('--client-id <clientId>', 'the credential whose previous secret to retire')
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions & { clientId: string }) => {
      const clientId = clientIdArgument('--client-id', options.clientId);
      const { credential, retired } = await withRuntime((rt, by) => rt.store.credentials.retirePreviousSecrets(clientId, by));
      emit(options, { ...credentialJson(credential), retired }, () =>
        retired > 0
          ? `retired the previous secret of ${clientId} (${credential.email}); only the newest one works now`
          : `${clientId} (${credential.email}) has no previous secret in a grace period; nothing changed`,
      );
    });

  credentials
    .command('revoke')
    .description('revoke a credential: its tokens stop working on the next request')
    .requiredOption('--client-id <clientId>', 'the credential to revoke')
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions & { clientId: string }) => {
      const clientId = clientIdArgument('--client-id', options.clientId);
      const { credential, alreadyRevoked } = await withRuntime(async (rt, by) => {
        const before = rt.clock.now();
        const revoked = await rt.store.credentials.revokeCredential(clientId, by);
        return { credential: revoked, alreadyRevoked: revoked.revokedAt! < before };
      });
      emit(options, { ...credentialJson(credential), alreadyRevoked }, () =>
        alreadyRevoked
          ? `${credential.clientId} (${credential.email}) was already revoked at ${isoTime(credential.revokedAt)}; nothing changed`
          : `revoked ${credential.clientId} (${credential.email}); its tokens no longer work`,
      );
    });

  credentials
    .command('list')
    .description('list credentials (never their secrets)')
    .option('--email <email>', "only this API user's credentials")
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions & { email?: string }) => {
      const email = options.email === undefined ? undefined : emailKey(emailArgument('--email', options.email));
      const all = await withRuntime((rt) => rt.store.credentials.listCredentials());
      const list = email === undefined ? all : all.filter((c) => emailKey(c.email) === email);
      emit(options, list.map(credentialJson), () =>
        table(
          list,
          [
            { header: 'CLIENT_ID', value: (c) => c.clientId },
            { header: 'EMAIL', value: (c) => c.email },
            { header: 'STATUS', value: (c) => credentialJson(c).status },
            { header: 'SECRETS', value: (c) => String(credentialJson(c).activeSecrets) },
            { header: 'CREATED', value: (c) => isoTime(c.createdAt)! },
            { header: 'LAST_USED', value: (c) => isoTime(c.lastUsedAt) ?? '-' },
          ],
          'no credentials',
        ),
      );
    });
}
