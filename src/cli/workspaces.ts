import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import { createWorkspace, listWorkspaces } from '../operations/directory.js';
import { nameArgument, uuidArgument } from './arguments.js';
import { endpointOptions, perform, type EndpointOptions } from './endpoint.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, table, type OutputOptions } from './output.js';

type Options = OutputOptions & EndpointOptions;

/** `workspaces`: what data is grouped by, and what membership grants access to. */
export function registerWorkspaces(program: Command): void {
  const workspaces = program.command('workspaces').description('workspaces (members see their tests)');

  endpointOptions(
    workspaces
      .command('create')
      .description('create a workspace')
      .requiredOption('--name <name>', 'display name')
      .option('--id <uuid>', 'its id (default: a new random UUID)')
      .option(JSON_FLAG, JSON_FLAG_HELP),
  ).action(async (options: Options & { name: string; id?: string }) => {
    const name = nameArgument('--name', options.name);
    const id = options.id === undefined ? randomUUID() : uuidArgument('--id', options.id);
    const workspace = await perform(options, (rt, by) => createWorkspace(rt, { id, name }, by), { method: 'POST', path: '/admin/api/workspaces', body: { id, name } });
    emit(options, workspace, () => `created workspace "${workspace.name}" (id ${workspace.id})`);
  });

  endpointOptions(workspaces.command('list').description('list workspaces').option(JSON_FLAG, JSON_FLAG_HELP)).action(async (options: Options) => {
    const list = await perform(options, (rt) => listWorkspaces(rt), { method: 'GET', path: '/admin/api/workspaces' });
    emit(options, list, () =>
      table(
        list,
        [
          { header: 'ID', value: (w) => w.id },
          { header: 'NAME', value: (w) => w.name },
          { header: 'CREATED', value: (w) => w.createdAt },
        ],
        'no workspaces',
      ),
    );
  });
}
