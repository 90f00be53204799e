// What every example shares: a ResultsClient made from the environment, and failures told in
// one line (usage mistakes exit 2, failed calls exit 1), never a stack trace.
import process from 'node:process';
import { URL } from 'node:url';
import { ResultsApiError, ResultsClient, ResultsNetworkError } from 'results-api/client';

export const ENVIRONMENT_HELP = `Environment (\`npx results-api demo --json\` prints a working set: clientId, clientSecret, baseUrl, ...):
  RESULTS_API_CLIENT_ID       the client id (required)
  RESULTS_API_CLIENT_SECRET   its client secret (required)
  RESULTS_API_BASE_URL        {base_url} of the Results API, e.g. http://localhost:8080 (required)
  RESULTS_API_AUTH_URL        {auth_url} of the authorization servers (default: RESULTS_API_BASE_URL)
  RESULTS_API_AUTH_SERVER_ID  the custom authorization server's id: request form B;
                              unset: form A (the default authorization server)`;

/** A mistake in how the program was run: `problem`, then the usage, on stderr; exit status 2. */
export class UsageError extends Error {}

/** The client the environment describes; a UsageError names what is missing or wrong. */
export function clientFromEnv(env = process.env) {
  const missing = ['RESULTS_API_CLIENT_ID', 'RESULTS_API_CLIENT_SECRET', 'RESULTS_API_BASE_URL'].filter((name) => !env[name]);
  if (missing.length > 0) throw new UsageError(`${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not set`);
  return new ResultsClient({
    authUrl: httpUrl(env, env.RESULTS_API_AUTH_URL ? 'RESULTS_API_AUTH_URL' : 'RESULTS_API_BASE_URL'),
    baseUrl: httpUrl(env, 'RESULTS_API_BASE_URL'),
    clientId: env.RESULTS_API_CLIENT_ID,
    clientSecret: env.RESULTS_API_CLIENT_SECRET,
    authorizationServerId: env.RESULTS_API_AUTH_SERVER_ID || undefined,
  });
}

/** The variable `name`, which must be an absolute http(s) URL. */
function httpUrl(env, name) {
  const value = env[name];
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) {
    throw new UsageError(`${name} must be an absolute http(s) URL, e.g. http://localhost:8080 (got "${value}")`);
  }
  return value;
}

/**
 * Runs `program`, and turns its failure into one line on stderr and an exit status: 2 with
 * the usage for a UsageError, 1 for a refused or failed call.
 */
export async function run(usage, program) {
  try {
    await program();
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`error: ${err.message}\n\n${usage}\n`);
      process.exitCode = 2;
    } else if (err instanceof ResultsApiError || err instanceof ResultsNetworkError) {
      process.stderr.write(`error: ${err.message}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    }
  }
}
