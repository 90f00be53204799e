import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import type { Test } from '../store/store.js';
import { nameArgument, uuidArgument } from './arguments.js';
import { withRuntime } from './context.js';
import { emit, isoTime, JSON_FLAG, JSON_FLAG_HELP, table, type OutputOptions } from './output.js';

export const DEFAULT_PRODUCT_TYPE = 'survey';

const testJson = (t: Test) => ({
  id: t.id,
  workspaceId: t.workspaceId,
  title: t.title,
  productType: t.productType,
  createdAt: isoTime(t.createdAt),
  sessionCount: t.sessionCount,
});

/** `tests`: the studies whose sessions the Results API lists. */
export function registerTests(program: Command): void {
  const tests = program.command('tests').description('tests (whose sessions the API lists)');

  tests
    .command('create')
    .description('create a test in a workspace')
    .requiredOption('--workspace <uuid>', 'the workspace id')
    .requiredOption('--title <title>', 'display title')
    .option('--id <uuid>', 'its id (default: a new random UUID)')
    .option('--product-type <type>', 'what kind of test it is', DEFAULT_PRODUCT_TYPE)
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions & { workspace: string; title: string; id?: string; productType: string }) => {
      const workspaceId = uuidArgument('--workspace', options.workspace);
      const title = nameArgument('--title', options.title);
      const productType = nameArgument('--product-type', options.productType, 64);
      const id = options.id === undefined ? randomUUID() : uuidArgument('--id', options.id);
      const test = await withRuntime((rt, by) => rt.store.directory.createTest({ id, workspaceId, title, productType }, by));
      emit(options, testJson(test), () => `created test "${test.title}" (id ${test.id}) in workspace ${test.workspaceId}`);
    });

  tests
    .command('list')
    .description("list a workspace's tests")
    .requiredOption('--workspace <uuid>', 'the workspace id')
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: OutputOptions & { workspace: string }) => {
      const workspaceId = uuidArgument('--workspace', options.workspace);
      const list = await withRuntime((rt) => rt.store.directory.listTests(workspaceId));
      emit(options, list.map(testJson), () =>
        table(
          list,
          [
            { header: 'ID', value: (t) => t.id },
            { header: 'TITLE', value: (t) => t.title },
            { header: 'PRODUCT_TYPE', value: (t) => t.productType },
            { header: 'SESSIONS', value: (t) => String(t.sessionCount) },
            { header: 'CREATED', value: (t) => isoTime(t.createdAt)! },
          ],
          'no tests',
        ),
      );
    });
}
