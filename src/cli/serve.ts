import { availableParallelism } from 'node:os';
import cluster from 'node:cluster';
import type { Command } from 'commander';
import { loadCliConfig } from './context.js';
import { JSON_FLAG, usageError } from './output.js';

/**
 * `serve`: the authorization servers and the Results API. With `--workers N` (default: one per
 * core) N processes share the port; with 1, the server runs in this process.
 */
export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('run the authorization servers and the Results API')
    .option('--workers <n>', 'server processes sharing the port (default: one per core)')
    .option(JSON_FLAG, 'accepted for symmetry: serve always logs JSON lines')
    .action(async (options: { workers?: string }) => {
      const workers = options.workers === undefined ? availableParallelism() : Number(options.workers);
      if (!Number.isInteger(workers) || workers < 1 || workers > 256) {
        throw usageError(`--workers must be an integer from 1 to 256 (got "${options.workers}")`);
      }
      const config = loadCliConfig();
      // Loaded here so that other commands start without loading the web stack.
      if (cluster.isPrimary && workers > 1) {
        const { runCluster } = await import('../serve/run-cluster.js');
        await runCluster(config, workers);
      } else {
        const { runServer } = await import('../serve/run-server.js');
        await runServer(config);
      }
    });
}
