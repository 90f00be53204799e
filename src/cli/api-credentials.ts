import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Option, type Command } from 'commander';
import { ResultsClient, type ApiForm, type ResultsClientOptions } from '@results-api/client';
import { CliError, usageError } from './output.js';
import { readStdin } from './stdin.js';

/**
 * Where the API-user commands (`token`, `sessions export`) find their client credentials:
 * environment variables, else a JSON config file readable by its owner only, and the secret
 * optionally on stdin. Never on the command line, where `ps` and shell history would show it.
 */

/** Environment variables, by the config file key they stand for. */
export const CREDENTIAL_ENV = {
  clientId: 'RESULTS_API_CLIENT_ID',
  clientSecret: 'RESULTS_API_CLIENT_SECRET',
  authUrl: 'RESULTS_API_AUTH_URL',
  baseUrl: 'RESULTS_API_BASE_URL',
  authorizationServerId: 'RESULTS_API_AUTH_SERVER_ID',
  form: 'RESULTS_API_FORM',
} as const;

type CredentialKey = keyof typeof CREDENTIAL_ENV;
const KEYS = Object.keys(CREDENTIAL_ENV) as CredentialKey[];

/** Where the server listens with no configuration (`npm start`). */
export const DEFAULT_URL = 'http://localhost:8080';

/** The options every API-user command accepts. */
export interface CredentialFlags {
  config?: string;
  clientSecretStdin?: boolean;
}

const CREDENTIAL_HELP = `
Credentials: an API user's client id and secret, never on the command line.
  environment  RESULTS_API_CLIENT_ID, RESULTS_API_CLIENT_SECRET,
               RESULTS_API_AUTH_URL, RESULTS_API_BASE_URL,
               RESULTS_API_AUTH_SERVER_ID, RESULTS_API_FORM (A or B)
  config file  JSON with clientId, clientSecret, authUrl, baseUrl,
               authorizationServerId, form; readable by its owner only
               (chmod 600). \`results-api demo --json\` prints one.
  stdin        --client-secret-stdin reads the secret.
Stdin wins over the environment, which wins over the config file. The URLs
default to http://localhost:8080; the form to B when an authorization server
id is set, else A.`;

/** Adds `--config`, `--client-secret-stdin` and the help on where credentials come from. */
export function addCredentialOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--config <file>', 'JSON credentials file, mode 0600 (default: ~/.config/results-api/credentials.json)'),
    )
    .option('--client-secret-stdin', 'read the client secret from stdin (for scripts)')
    .addHelpText('after', CREDENTIAL_HELP);
}

/** `$XDG_CONFIG_HOME/results-api/credentials.json`, or under `~/.config`. */
export function defaultConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'results-api', 'credentials.json');
}

/**
 * The client options from every source, each field taken from the first that has it:
 * stdin (the secret only), the environment, the config file. The URLs default to a server
 * on this machine, the form to B when an authorization server id is known.
 */
export async function resolveClientOptions(
  flags: CredentialFlags,
  io: { env?: NodeJS.ProcessEnv; readStdin?: () => Promise<string> } = {},
): Promise<ResultsClientOptions> {
  const env = io.env ?? process.env;
  const file = readConfigFile(flags.config ?? defaultConfigPath(env), flags.config !== undefined);
  const pick = (key: CredentialKey): string | undefined => env[CREDENTIAL_ENV[key]] || file[key] || undefined;

  let clientSecret = pick('clientSecret');
  if (flags.clientSecretStdin) {
    clientSecret = (await (io.readStdin ?? readStdin)()).replace(/\r?\n$/, '');
    if (clientSecret === '') throw usageError('--client-secret-stdin: stdin was empty; pipe the client secret into the command');
  }
  const clientId = pick('clientId');
  const where = `set ${CREDENTIAL_ENV.clientId} and ${CREDENTIAL_ENV.clientSecret}, or put clientId and clientSecret in ${flags.config ?? defaultConfigPath(env)}`;
  if (!clientId) throw usageError(`no client id: ${where}`);
  if (!clientSecret) throw usageError(`no client secret: ${where} (or use --client-secret-stdin)`);

  const rawForm = pick('form')?.toUpperCase();
  if (rawForm !== undefined && rawForm !== 'A' && rawForm !== 'B') {
    throw usageError(`${CREDENTIAL_ENV.form} (or "form" in the config file) must be A or B (got "${pick('form')}")`);
  }
  const authUrl = pick('authUrl');
  const baseUrl = pick('baseUrl');
  const authorizationServerId = pick('authorizationServerId');
  return {
    clientId,
    clientSecret,
    // One server plays both roles by default, so either URL stands for the other.
    authUrl: authUrl ?? baseUrl ?? DEFAULT_URL,
    baseUrl: baseUrl ?? authUrl ?? DEFAULT_URL,
    ...(authorizationServerId ? { authorizationServerId } : {}),
    ...(rawForm ? { form: rawForm as ApiForm } : {}),
  };
}

/** A client from the resolved options; a wrong option is the user's to fix, so it is a usage error. */
export async function openResultsClient(flags: CredentialFlags): Promise<ResultsClient> {
  const options = await resolveClientOptions(flags);
  try {
    return new ResultsClient(options);
  } catch (err) {
    if (err instanceof TypeError) throw usageError(err.message.replace(/^ResultsClient: /, ''));
    throw err;
  }
}

/**
 * Reads the config file. A missing default file is no error (the environment may hold
 * everything); a missing `--config` file is. A file others may read is refused before it
 * is parsed: it holds a client secret.
 */
export function readConfigFile(path: string, explicit: boolean): Partial<Record<CredentialKey, string>> {
  let mode: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw usageError(`config file ${path} is not a regular file`);
    mode = stat.mode;
  } catch (err) {
    if (err instanceof CliError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && !explicit) return {};
    throw usageError(`cannot read config file ${path}: ${reason(err)}`);
  }
  // Windows has no POSIX permission bits to check.
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    throw usageError(
      `config file ${path} has permissions ${(mode & 0o777).toString(8).padStart(4, '0')}; it holds a client secret, ` +
        `so only its owner may read it: run chmod 600 ${path}`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw usageError(`config file ${path} is not valid JSON: ${reason(err)}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw usageError(`config file ${path} must hold a JSON object with ${KEYS.join(', ')}`);
  }
  const values: Partial<Record<CredentialKey, string>> = {};
  for (const key of KEYS) {
    const value = (parsed as Record<string, unknown>)[key];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') throw usageError(`config file ${path}: ${key} must be a string`);
    values[key] = value;
  }
  // Other keys (such as testId and workspaceId from `demo --json`) are left alone.
  return values;
}

function reason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES') return 'permission denied';
  return err instanceof Error ? err.message : String(err);
}

