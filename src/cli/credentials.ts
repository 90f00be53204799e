import type { Command } from 'commander';
import { registerCredentialsIssueCommand } from './credentials-issue.js';
import { registerCredentialsListCommand } from './credentials-list.js';
import { registerCredentialsRetirePreviousCommand } from './credentials-retire-previous.js';
import { registerCredentialsRevokeCommand } from './credentials-revoke.js';
import { registerCredentialsRotateCommand } from './credentials-rotate.js';

/** `credentials`: client id/secret pairs of API users. The secret is printed once, never stored. */
export function registerCredentials(program: Command): void {
  const credentials = program.command('credentials').description('client credentials of API users');
  registerCredentialsIssueCommand(credentials);
  registerCredentialsRotateCommand(credentials);
  registerCredentialsRetirePreviousCommand(credentials);
  registerCredentialsRevokeCommand(credentials);
  registerCredentialsListCommand(credentials);
}
