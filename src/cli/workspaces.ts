import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import type { Workspace } from '../store/store.js';
import { nameArgument, uuidArgument } from './arguments.js';
import { withRuntime } from './context.js';
import { emit, isoTime, JSON_FLAG, JSON_FLAG_HELP, table, type OutputOptions } from './output.js';

const workspaceJson = (w: Workspace) => ({ id: w.id, name: w.name, createdAt: isoTime(w.createdAt) });

/** `workspaces`: what data is grouped by, and what membership grants access to. */
export function registerWorkspaces(program: Command): void {
  const workspaces = program.command('workspaces').description('workspaces (members see their tests)');

  workspaces
    .command('create')
    .description('create a workspace')
    .requiredOption('--name <name>', 'display name')
    .option('--id <uuid>', 'its id (default: a new random UUID)')
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions & { name: string; id?: string }) => {
      const name = nameArgument('--name', options.name);
      const id = options.id === undefined ? randomUUID() : uuidArgument('--id', options.id);
      const workspace = await withRuntime((rt, by) => rt.store.directory.createWorkspace({ id, name }, by));
      emit(options, workspaceJson(workspace), () => `created workspace "${workspace.name}" (id ${workspace.id})`);
    });

  workspaces
    .command('list')
    .description('list workspaces')
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions) => {
      const list = await withRuntime((rt) => rt.store.directory.listWorkspaces());
      emit(options, list.map(workspaceJson), () =>
        table(
          list,
          [
            { header: 'ID', value: (w) => w.id },
            { header: 'NAME', value: (w) => w.name },
            { header: 'CREATED', value: (w) => isoTime(w.createdAt)! },
          ],
          'no workspaces',
        ),
      );
    });
}
