import type { Command } from 'commander';
import { createAdminWithLink, renewSetupLink, setupLinkUnavailable, type SetupLink } from '../admin/setup-links.js';
import { ADMIN_CLIENT_ID_PATTERN, generateAdminClientId } from '../admin/admin-client-ids.js';
import { generateClientSecret } from '../oauth/client-secrets.js';
import { ADMIN_ROLES, type Admin, type AdminClient, type AdminRole } from '../store/admins.js';
import { SECRET_SHOWN_ONCE, secretLines } from './credentials.js';
import { emailArgument, uuidArgument } from './arguments.js';
import { withRuntime } from './context.js';
import { CliError, emit, isoTime, JSON_FLAG, JSON_FLAG_HELP, table, usageError, type OutputOptions } from './output.js';
import type { Runtime } from '../runtime.js';

export const adminJson = (a: Admin) => ({
  id: a.id,
  email: a.email,
  role: a.role,
  passwordSet: a.passwordSet,
  totpEnabled: a.totpEnabled,
  createdAt: isoTime(a.createdAt),
});

function roleArgument(value: string): AdminRole {
  const role = value.trim() as AdminRole;
  if (!ADMIN_ROLES.includes(role)) throw usageError(`--role must be one of ${ADMIN_ROLES.join(', ')} (got "${value}")`);
  return role;
}

const linkJson = (l: SetupLink) => ({ ...adminJson(l.admin), setupLink: l.setupLink, setupLinkExpiresAt: isoTime(l.expiresAt) });

const linkText = (l: SetupLink) =>
  [
    `Setup link for ${l.admin.email} (${l.admin.role}), usable once until ${isoTime(l.expiresAt)}:`,
    '',
    `  ${l.setupLink}`,
    '',
    'Hand it to them through a secure channel: whoever opens it first chooses the password.',
  ].join('\n');

function requireLinks(rt: Runtime): void {
  const why = setupLinkUnavailable(rt.config);
  if (why) throw new CliError(why);
}

/** `admins`: accounts of the admin API and console (operators, support staff, account admins). */
export function registerAdmins(program: Command): void {
  const admins = program.command('admins').description('admin accounts of the admin API and console');

  admins
    .command('create')
    .description('create an admin account and print its one-time setup link (valid 24 hours)')
    .requiredOption('--email <email>', "the admin's email (their sign-in name)")
    .requiredOption('--role <role>', `one of ${ADMIN_ROLES.join(', ')}`)
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions & { email: string; role: string }) => {
      const email = emailArgument('--email', options.email);
      const role = roleArgument(options.role);
      const link = await withRuntime((rt, by) => {
        requireLinks(rt);
        return createAdminWithLink(rt, { email, role }, by);
      });
      emit(options, linkJson(link), () => `created admin ${link.admin.email} (${link.admin.role})\n\n${linkText(link)}`);
    });

  admins
    .command('setup-link')
    .description('print a new one-time setup link for an admin (a lost or expired one; the earlier link stops working)')
    .requiredOption('--email <email>', "the admin's email")
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions & { email: string }) => {
      const email = emailArgument('--email', options.email);
      const link = await withRuntime((rt, by) => {
        requireLinks(rt);
        return renewSetupLink(rt, email, by);
      });
      emit(options, linkJson(link), () => linkText(link));
    });

  admins
    .command('totp-reset')
    .description("turn an admin's TOTP second factor off (a lost phone); they can enrol again once signed in")
    .requiredOption('--email <email>', "the admin's email")
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions & { email: string }) => {
      const email = emailArgument('--email', options.email);
      const admin = await withRuntime((rt, by) => rt.store.admins.resetTotp(email, by));
      emit(options, adminJson(admin), () => `${admin.email} signs in with the password alone now; TOTP can be enrolled again from the console`);
    });

  admins
    .command('list')
    .description('list admin accounts')
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions) => {
      const list = await withRuntime((rt) => rt.store.admins.listAdmins());
      emit(options, list.map(adminJson), () =>
        table(
          list,
          [
            { header: 'EMAIL', value: (a) => a.email },
            { header: 'ROLE', value: (a) => a.role },
            { header: 'PASSWORD', value: (a) => (a.passwordSet ? 'set' : 'awaiting setup') },
            { header: 'TOTP', value: (a) => (a.totpEnabled ? 'on' : 'off') },
            { header: 'ID', value: (a) => a.id },
          ],
          'no admins',
        ),
      );
    });

  const assignment = (verb: 'assign' | 'unassign', description: string) =>
    admins
      .command(verb)
      .description(description)
      .requiredOption('--email <email>', 'the account admin')
      .requiredOption('--workspace <uuid>', 'the workspace')
      .option(JSON_FLAG, JSON_FLAG_HELP)
      .action(async (options: OutputOptions & { email: string; workspace: string }) => {
        const email = emailArgument('--email', options.email);
        const workspaceId = uuidArgument('--workspace', options.workspace);
        const workspaces = await withRuntime(async (rt, by) => {
          const admin = await rt.store.admins.findAdminForSignIn(email);
          if (!admin) throw new CliError(`no admin with email ${email}`);
          if (verb === 'assign') await rt.store.admins.assignWorkspace(admin.id, workspaceId, by);
          else await rt.store.admins.unassignWorkspace(admin.id, workspaceId, by);
          return rt.store.admins.assignedWorkspaces(admin.id);
        });
        emit(options, { email, workspaces }, () =>
          verb === 'assign' ? `${email} now administers workspace ${workspaceId}` : `${email} no longer administers workspace ${workspaceId}`,
        );
      });
  assignment('assign', 'let an account admin administer a workspace (its members and tests)');
  assignment('unassign', 'stop an account admin administering a workspace');

  const clients = admins.command('clients').description('admin API clients: client credentials for scripts and --endpoint, acting as an admin');
  clients
    .command('create')
    .description("issue an admin API client to an admin (the secret is printed once); it acts with the admin's role")
    .requiredOption('--email <email>', 'the admin it acts as')
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions & { email: string }) => {
      const email = emailArgument('--email', options.email);
      const clientSecret = generateClientSecret();
      const result = await withRuntime(async (rt, by) => {
        const admin = await rt.store.admins.findAdminForSignIn(email);
        if (!admin) throw new CliError(`no admin with email ${email}`);
        const client = await rt.store.admins.createClient({ clientId: generateAdminClientId(), adminId: admin.id, secretHash: rt.hasher.hash(clientSecret) }, by);
        return { client, endpoint: setupLinkUnavailable(rt.config) ? null : rt.config.admin!.url };
      });
      const { client, endpoint } = result;
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

  clients
    .command('list')
    .description('list admin API clients (never their secrets)')
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions) => {
      const list = await withRuntime((rt) => rt.store.admins.listClients());
      emit(options, list.map(adminClientJson), () =>
        table(
          list,
          [
            { header: 'CLIENT_ID', value: (c) => c.clientId },
            { header: 'ADMIN', value: (c) => c.admin.email },
            { header: 'ROLE', value: (c) => c.admin.role },
            { header: 'STATUS', value: (c) => (c.revokedAt === null ? 'active' : 'revoked') },
            { header: 'CREATED', value: (c) => isoTime(c.createdAt)! },
          ],
          'no admin API clients',
        ),
      );
    });
}

const adminClientJson = (c: AdminClient) => ({
  clientId: c.clientId,
  email: c.admin.email,
  role: c.admin.role,
  status: c.revokedAt === null ? 'active' : 'revoked',
  createdAt: isoTime(c.createdAt),
  revokedAt: isoTime(c.revokedAt),
});
