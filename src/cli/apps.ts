import type { Command } from 'commander';
import { listApps, registerApp, revokeApp, type AppInput } from '../operations/apps.js';
import { endpointOptions, perform, type EndpointOptions } from './endpoint.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, table, usageError, type OutputOptions } from './output.js';

type Options = OutputOptions & EndpointOptions;
const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** `apps`: partner apps that act for API users once a user approves them (issue 34). */
export function registerApps(program: Command): void {
  const apps = program.command('apps').description('partner apps that users authorize to read on their behalf');

  endpointOptions(
    apps
      .command('register')
      .description('register a partner app (a confidential app\'s secret is printed once)')
      .requiredOption('--name <name>', 'the name users see on the consent page')
      .requiredOption('--redirect-uri <uri>', 'where users are sent back (repeat for several; https, loopback http or a private-use scheme)', collect)
      .requiredOption('--scope <scope>', 'a scope the app may ask for (repeat, or space-separated)', collect)
      .option('--public', 'a public app (native or browser app without a secret; PKCE alone)')
      .option(JSON_FLAG, JSON_FLAG_HELP),
  ).action(async (options: Options & { name: string; redirectUri: string[]; scope: string[]; public?: boolean }) => {
    const input: AppInput = {
      name: options.name,
      redirectUris: options.redirectUri,
      scopes: options.scope.flatMap((s) => s.split(' ')).filter((s) => s !== ''),
      clientType: options.public ? 'public' : 'confidential',
    };
    const registered = await perform(options, (rt, by) => registerApp(rt, input, by), { method: 'POST', path: '/admin/api/apps', body: input });
    emit(options, registered, () =>
      [
        `Registered ${registered.app.clientType} app ${registered.app.name}:`,
        `  client_id:     ${registered.app.clientId}`,
        ...(registered.clientSecret ? [`  client_secret: ${registered.clientSecret}`, '', 'The client secret is shown only this once: only a hash of it is stored.'] : []),
        `  redirect URIs: ${registered.app.redirectUris.join(' ')}`,
        `  scopes:        ${registered.app.scopes.join(' ')}`,
      ].join('\n'),
    );
  });

  endpointOptions(apps.command('list').description('list partner apps').option(JSON_FLAG, JSON_FLAG_HELP)).action(async (options: Options) => {
    const list = await perform(options, (rt) => listApps(rt), { method: 'GET', path: '/admin/api/apps' });
    emit(options, list, () =>
      table(
        list,
        [
          { header: 'CLIENT_ID', value: (a) => a.clientId },
          { header: 'NAME', value: (a) => a.name },
          { header: 'TYPE', value: (a) => a.clientType },
          { header: 'ORIGIN', value: (a) => a.origin },
          { header: 'STATUS', value: (a) => a.status },
          { header: 'SCOPES', value: (a) => a.scopes.join(' ') },
        ],
        'no apps',
      ),
    );
  });

  endpointOptions(
    apps
      .command('revoke')
      .description('revoke an app: every token users granted it stops working, and no user can authorize it again')
      .requiredOption('--client-id <id>', "the app's client id")
      .option(JSON_FLAG, JSON_FLAG_HELP),
  ).action(async (options: Options & { clientId: string }) => {
    const clientId = options.clientId.trim();
    if (clientId === '' || clientId.length > 2048) throw usageError('--client-id must be an app\'s client id');
    const app = await perform(options, (rt, by) => revokeApp(rt, clientId, by), { method: 'POST', path: `/admin/api/apps/${encodeURIComponent(clientId)}/revoke` });
    emit(options, app, () => `app ${app.name} (${app.clientId}) is now ${app.status}`);
  });
}
