import type { Command } from 'commander';
import { registerAdminsAssignCommands } from './admins-assign.js';
import { registerAdminsClientsCreateCommand } from './admins-clients-create.js';
import { registerAdminsClientsListCommand } from './admins-clients-list.js';
import { registerAdminsClientsRevokeCommand } from './admins-clients-revoke.js';
import { registerAdminsCreateCommand } from './admins-create.js';
import { registerAdminsListCommand } from './admins-list.js';
import { registerAdminsSetupLinkCommand } from './admins-setup-link.js';
import { registerAdminsTotpResetCommand } from './admins-totp-reset.js';

/** `admins`: accounts of the admin API and console (operators, support staff, account admins), and their API clients. */
export function registerAdmins(program: Command): void {
  const admins = program.command('admins').description('admin accounts of the admin API and console');
  registerAdminsCreateCommand(admins);
  registerAdminsSetupLinkCommand(admins);
  registerAdminsTotpResetCommand(admins);
  registerAdminsListCommand(admins);
  registerAdminsAssignCommands(admins);

  const clients = admins.command('clients').description('admin API clients: client credentials for scripts and --endpoint, acting as an admin');
  registerAdminsClientsCreateCommand(clients);
  registerAdminsClientsRevokeCommand(clients);
  registerAdminsClientsListCommand(clients);
}
