import type { Command } from 'commander';
import { loadCliConfig } from './context.js';
import { JSON_FLAG } from './output.js';

/** `serve`: the authorization servers and the Results API, in one process on one port. */
export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('run the authorization servers and the Results API')
    .option(JSON_FLAG, 'accepted for symmetry: serve always logs JSON lines')
    .action(async () => {
      const config = loadCliConfig();
      // Loaded here so that other commands start without loading the web stack.
      const [{ openRuntime }, { buildApp }] = await Promise.all([import('../runtime.js'), import('../app.js')]);
      const runtime = await openRuntime(config);
      let app: Awaited<ReturnType<typeof buildApp>> | undefined;
      try {
        app = await buildApp(runtime);
        const address = await app.listen({ host: config.host, port: config.port });
        const authorizationServerId = runtime.servers.custom.id;
        app.log.info(
          { address, authUrl: config.authUrl, baseUrl: config.baseUrl, authorizationServerId },
          `results-api listening on ${address}: auth_url ${config.authUrl} (servers default and ${authorizationServerId}), base_url ${config.baseUrl}`,
        );
      } catch (err) {
        await app?.close();
        await runtime.close();
        throw err;
      }

      const server = app;
      let stopping = false;
      const stop = (signal: NodeJS.Signals) => {
        if (stopping) {
          // A second signal: the operator does not want to wait for requests in flight.
          process.exit(1);
        }
        stopping = true;
        server.log.info({ signal }, 'shutting down');
        void (async () => {
          try {
            await server.close();
            await runtime.close();
          } catch (err) {
            process.stderr.write(`error: shutdown failed: ${(err as Error).message}\n`);
            process.exitCode = 1;
          }
        })();
      };
      process.on('SIGTERM', stop);
      process.on('SIGINT', stop);
    });
}
