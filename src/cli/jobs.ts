import type { Command } from 'commander';
import { listJobs } from '../operations/clips.js';
import { JOB_STATES, type JobState } from '../store/jobs.js';
import { positiveIntegerArgument } from './arguments.js';
import { endpointOptions, perform, type EndpointOptions } from './endpoint.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, table, usageError, type OutputOptions } from './output.js';

function stateArgument(value: string): JobState {
  const state = value.trim().toLowerCase();
  if (!(JOB_STATES as readonly string[]).includes(state)) throw usageError(`--state must be one of ${JOB_STATES.join(', ')} (got "${value}")`);
  return state as JobState;
}

const MAX_LIMIT = 10_000;

/** `jobs`: the background work (clips, reels) the server processes run. */
export function registerJobs(program: Command): void {
  const jobs = program.command('jobs').description('background jobs (clips, reels) run by the server processes');

  endpointOptions(
    jobs
      .command('list')
      .description('the newest jobs first, with their state, attempts and last error')
      .option('--state <state>', `only jobs in this state: ${JOB_STATES.join(', ')}`)
      .option('--kind <kind>', 'only jobs of this kind (e.g. clip.generate)')
      .option('--limit <n>', `how many (1-${MAX_LIMIT})`, '50')
      .option(JSON_FLAG, JSON_FLAG_HELP),
  ).action(async (options: OutputOptions & EndpointOptions & { state?: string; kind?: string; limit: string }) => {
    const filter = {
      limit: positiveIntegerArgument('--limit', options.limit, MAX_LIMIT),
      ...(options.state === undefined ? {} : { state: stateArgument(options.state) }),
      ...(options.kind === undefined ? {} : { kind: options.kind.trim() }),
    };
    const query = new URLSearchParams(Object.entries(filter).map(([k, v]) => [k, String(v)]));
    const list = await perform(options, (rt) => listJobs(rt, filter), { method: 'GET', path: `/admin/api/jobs?${query}` });
    emit(options, list, () =>
      table(
        list,
        [
          { header: 'JOB', value: (j) => j.id },
          { header: 'KIND', value: (j) => j.kind },
          { header: 'SUBJECT', value: (j) => j.subject },
          { header: 'STATE', value: (j) => j.state },
          { header: 'ATTEMPTS', value: (j) => `${j.attempts}/${j.maxAttempts}` },
          { header: 'UPDATED', value: (j) => j.updatedAt },
          { header: 'LAST_ERROR', value: (j) => j.lastError ?? '-' },
        ],
        'no jobs',
      ),
    );
  });
}
