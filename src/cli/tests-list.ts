import type { Command } from 'commander';
import { COMPLETED_STATUS } from '../store/store.js';
import { listTests } from '../operations/directory.js';
import { resolveWorkspace, resolveWorkspaceThrough, workspaceArgument, WORKSPACE_OPTION, WORKSPACE_OPTION_HELP } from './workspace-argument.js';
import { ADMIN_CLIENT_ID_OPTION, ADMIN_CLIENT_SECRET_OPTION, ENDPOINT_OPTION, perform, type EndpointOptions } from './endpoint.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, table, type OutputOptions } from './output.js';

/** `tests list`: a workspace's tests, with their tasks and sessions counted. */
export function registerTestsListCommand(tests: Command): void {
  tests
    .command('list')
    .description("list a workspace's tests")
    .requiredOption(WORKSPACE_OPTION, WORKSPACE_OPTION_HELP)
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .option(...ENDPOINT_OPTION)
    .option(...ADMIN_CLIENT_ID_OPTION)
    .option(...ADMIN_CLIENT_SECRET_OPTION)
    .action(async (options: OutputOptions & EndpointOptions & { workspace: string }) => {
      const workspace = workspaceArgument(options.workspace);
      const list = await perform(
        options,
        async (rt) => listTests(rt, await resolveWorkspace(rt.store.directory, workspace)),
        async (api) => api({ method: 'GET', path: `/admin/api/workspaces/${await resolveWorkspaceThrough(api, workspace)}/tests` }),
      );
      emit(options, list, () =>
        table(
          list,
          [
            { header: 'ID', value: (t) => t.id },
            { header: 'TITLE', value: (t) => t.title },
            { header: 'PRODUCT_TYPE', value: (t) => t.productType },
            { header: 'TASKS', value: (t) => String((t.plan as { tasks?: unknown[] } | null)?.tasks?.length ?? 0) },
            { header: 'SESSIONS', value: (t) => String(t.sessionCount) },
            { header: 'COMPLETED', value: (t) => String(t.sessionsByStatus[COMPLETED_STATUS] ?? 0) },
            { header: 'ORDERED', value: (t) => t.orderedAt },
          ],
          'no tests',
        ),
      );
    });
}
