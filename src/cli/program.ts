import { Command } from 'commander';
import { PACKAGE_VERSION } from '../version.js';

type RegisterNoun = (program: Command) => void;

/**
 * `results-api`: noun, then verb. Each noun lives in its own file and adds its commands to
 * the program; adding one is a file and a line here. A command loads only its own noun's
 * file (the others' imports, the server's or the demo's, would cost every command ~0.2 s);
 * the program's own help, and anything that is not a noun, loads them all.
 */
export const nouns: Readonly<Record<string, () => Promise<RegisterNoun>>> = {
  serve: async () => (await import('./serve.js')).registerServe,
  migrate: async () => (await import('./migrate.js')).registerMigrate,
  demo: async () => (await import('./demo.js')).registerDemo,
  users: async () => (await import('./users.js')).registerUsers,
  credentials: async () => (await import('./credentials.js')).registerCredentials,
  apps: async () => (await import('./apps.js')).registerApps,
  workspaces: async () => (await import('./workspaces.js')).registerWorkspaces,
  members: async () => (await import('./members.js')).registerMembers,
  tests: async () => (await import('./tests.js')).registerTests,
  sessions: async () => (await import('./sessions.js')).registerSessions,
  transcripts: async () => (await import('./transcripts.js')).registerTranscripts,
  videos: async () => (await import('./videos.js')).registerVideos,
  token: async () => (await import('./token.js')).registerTokenCommand,
  search: async () => (await import('./search.js')).registerSearchCommand,
  keys: async () => (await import('./keys.js')).registerKeys,
  audit: async () => (await import('./audit.js')).registerAudit,
  admins: async () => (await import('./admins.js')).registerAdmins,
  clips: async () => (await import('./clips.js')).registerClips,
  reels: async () => (await import('./reels.js')).registerReels,
  jobs: async () => (await import('./jobs.js')).registerJobs,
  webhooks: async () => (await import('./webhooks.js')).registerWebhooks,
};

/** The program with `noun`'s commands, or every noun's when `noun` is not one. */
export async function buildProgram(noun: string | undefined): Promise<Command> {
  const program = new Command('results-api')
    .description('OAuth 2.0 client-credentials authorization server and research Results API')
    .version(PACKAGE_VERSION, '-V, --version', 'print the version and exit')
    // Set before the commands are added, so every subcommand inherits them.
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .allowExcessArguments(false);
  const wanted = noun !== undefined && Object.hasOwn(nouns, noun) ? [nouns[noun]!] : Object.values(nouns);
  for (const register of await Promise.all(wanted.map((load) => load()))) register(program);
  return program;
}
