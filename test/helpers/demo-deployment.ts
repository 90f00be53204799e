import { join } from 'node:path';
import { afterAll } from 'vitest';
import { cliSandbox } from '../cli/run-cli.js';
import { startTestApp, type TestApp } from './test-app.js';

/** What `results-api demo` printed: its whole output and the values a reader pastes from it. */
export interface DemoDeployment {
  t: TestApp;
  /** The demo's stdout, as a newcomer sees it. */
  output: string;
  clientId: string;
  clientSecret: string;
  authorizationServerId: string;
}

/**
 * A server on the data `results-api demo` seeds, as the README's quick start has it: the app
 * runs first, then `demo --url <its address>` seeds its database and prints credentials and
 * commands for it. Closed after the file's tests. The docs' examples run against it.
 */
export async function startDemoDeployment(): Promise<DemoDeployment> {
  const cli = cliSandbox();
  const media = { MEDIA_URL: `file:${join(cli.dir, 'data', 'media')}` };
  const t = await startTestApp({ env: { DATABASE_URL: cli.databaseUrl, ...media } });
  afterAll(async () => {
    await t.close();
    cli.cleanup();
  });
  const demo = await cli.run(['demo', '--url', t.url], media);
  if (demo.code !== 0) throw new Error(`results-api demo exited ${demo.code}: ${demo.stderr}`);
  const printed = (pattern: RegExp): string => {
    const value = pattern.exec(demo.stdout)?.[1];
    if (value === undefined) throw new Error(`${pattern} not in the demo's output:\n${demo.stdout}`);
    return value;
  };
  return {
    t,
    output: demo.stdout,
    clientId: printed(/^ {2}client_id: +(\S+)$/m),
    clientSecret: printed(/^ {2}client_secret: +(\S+)$/m),
    authorizationServerId: printed(/^# Form B \(current\): the custom authorization server (\S+),/m),
  };
}
