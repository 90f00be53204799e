import type { Command } from 'commander';
import { issueCredential } from '../operations/credentials.js';
import { SERVER_SCOPES } from '../scope-names.js';
import { emailArgument } from './arguments.js';
import { endpointOptions, perform, type EndpointOptions } from './endpoint.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, type OutputOptions } from './output.js';
import { SECRET_SHOWN_ONCE, secretLines } from './secret-lines.js';

type Options = OutputOptions & EndpointOptions;

/** `credentials issue`: a client id and secret for an API user, and where to use them; the secret is printed once. */
export function registerCredentialsIssueCommand(credentials: Command): void {
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
}
