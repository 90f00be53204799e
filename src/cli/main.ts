#!/usr/bin/env node
import { Command } from 'commander';
import { PACKAGE_VERSION } from '../version.js';
import { registerAdmins } from './admins.js';
import { registerAudit } from './audit.js';
import { registerClips } from './clips.js';
import { registerJobs } from './jobs.js';
import { registerReels } from './reels.js';
import { registerCredentials } from './credentials.js';
import { registerDemo } from './demo.js';
import { registerKeys } from './keys.js';
import { registerMembers } from './members.js';
import { registerMigrate } from './migrate.js';
import { reportError } from './output.js';
import { registerServe } from './serve.js';
import { registerSessions } from './sessions.js';
import { registerTests } from './tests.js';
import { registerTokenCommand } from './token.js';
import { registerTranscripts } from './transcripts.js';
import { registerUsers } from './users.js';
import { registerVideos } from './videos.js';
import { registerWorkspaces } from './workspaces.js';

/**
 * `results-api`: noun, then verb. Each noun lives in its own file and adds its commands to
 * the program; adding one is a file and a line here.
 */
const nouns: ReadonlyArray<(program: Command) => void> = [
  registerServe,
  registerMigrate,
  registerDemo,
  registerUsers,
  registerCredentials,
  registerWorkspaces,
  registerMembers,
  registerTests,
  registerSessions,
  registerTranscripts,
  registerVideos,
  registerTokenCommand,
  registerKeys,
  registerAudit,
  registerAdmins,
  registerClips,
  registerReels,
  registerJobs,
];

function buildProgram(): Command {
  const program = new Command('results-api')
    .description('OAuth 2.0 client-credentials authorization server and research Results API')
    .version(PACKAGE_VERSION, '-V, --version', 'print the version and exit')
    // Set before the commands are added, so every subcommand inherits them.
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .allowExcessArguments(false);
  for (const register of nouns) register(program);
  return program;
}

try {
  await buildProgram().parseAsync(process.argv);
} catch (err) {
  process.exitCode = reportError(err);
}
