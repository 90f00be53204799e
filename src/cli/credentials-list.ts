import type { Command } from 'commander';
import { listCredentials } from '../operations/credentials.js';
import { emailArgument } from './arguments.js';
import { endpointOptions, perform, type EndpointOptions } from './endpoint.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, table, type OutputOptions } from './output.js';

type Options = OutputOptions & EndpointOptions;

/** `credentials list`: every credential, or one API user's; never a secret. */
export function registerCredentialsListCommand(credentials: Command): void {
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
