import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import { isoTime } from '../iso-time.js';
import { createTest } from '../operations/directory.js';
import { PRODUCT_TYPES, type TestInput } from '../store/store.js';
import { emailArgument, nameArgument, uuidArgument } from './arguments.js';
import { resolveWorkspace, resolveWorkspaceThrough, workspaceArgument, WORKSPACE_OPTION, WORKSPACE_OPTION_HELP } from './workspace-argument.js';
import { ADMIN_CLIENT_ID_OPTION, ADMIN_CLIENT_SECRET_OPTION, ENDPOINT_OPTION, perform, type EndpointOptions } from './endpoint.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, usageError, type OutputOptions } from './output.js';
import { readTestPlanFile } from './test-plan-file.js';

const DEFAULT_PRODUCT_TYPE = 'SURVEY';

/** The admin API's body for a new test: the command's checked values, times as ISO 8601. */
const testBody = (input: Omit<TestInput, 'workspaceId'>) => ({
  ...input,
  ...(input.orderedAt === undefined ? {} : { orderedAt: isoTime(input.orderedAt) }),
});

function productTypeArgument(value: string): string {
  const type = value.trim().toUpperCase();
  if (!(PRODUCT_TYPES as readonly string[]).includes(type)) {
    throw usageError(`--product-type must be one of ${PRODUCT_TYPES.join(', ')} (got "${value}")`);
  }
  return type;
}

function timeArgument(option: string, value: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(value.trim()) ? Date.parse(value.trim()) : NaN;
  if (Number.isNaN(ms)) throw usageError(`${option} must be an ISO 8601 time with a zone, e.g. 2025-03-01T09:30:00Z (got "${value}")`);
  return ms;
}

interface CreateOptions extends OutputOptions, EndpointOptions {
  workspace: string;
  title: string;
  id?: string;
  productType: string;
  orderedBy?: string;
  orderedByName?: string;
  orderedAt?: string;
  plan?: string;
}

/** `tests create`: a test in a workspace, with its plan when given. */
export function registerTestsCreateCommand(tests: Command): void {
  tests
    .command('create')
    .description('create a test in a workspace')
    .requiredOption(WORKSPACE_OPTION, WORKSPACE_OPTION_HELP)
    .requiredOption('--title <title>', 'display title')
    .option('--id <uuid>', 'its id (default: a new random UUID)')
    .option('--product-type <type>', `what kind of research it is: ${PRODUCT_TYPES.join(', ')}`, DEFAULT_PRODUCT_TYPE)
    .option('--ordered-by <email>', 'who ordered the test')
    .option('--ordered-by-name <name>', "that person's name (with --ordered-by)")
    .option('--ordered-at <time>', 'when it was ordered, ISO 8601 (default: now)')
    .option('--plan <file.json>', 'its test plan (see `tests plan set`)')
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .option(...ENDPOINT_OPTION)
    .option(...ADMIN_CLIENT_ID_OPTION)
    .option(...ADMIN_CLIENT_SECRET_OPTION)
    .action(async (options: CreateOptions) => {
      const workspace = workspaceArgument(options.workspace);
      const input: Omit<TestInput, 'workspaceId'> = {
        title: nameArgument('--title', options.title),
        productType: productTypeArgument(options.productType),
        id: options.id === undefined ? randomUUID() : uuidArgument('--id', options.id),
      };
      if (options.orderedByName !== undefined && options.orderedBy === undefined) throw usageError('--ordered-by-name needs --ordered-by');
      if (options.orderedBy !== undefined) {
        input.orderedBy = {
          email: emailArgument('--ordered-by', options.orderedBy),
          name: options.orderedByName === undefined ? null : nameArgument('--ordered-by-name', options.orderedByName),
        };
      }
      if (options.orderedAt !== undefined) input.orderedAt = timeArgument('--ordered-at', options.orderedAt);
      if (options.plan !== undefined) input.plan = await readTestPlanFile(options.plan, input.id);
      const test = await perform(
        options,
        async (rt, by) => createTest(rt, { ...input, workspaceId: await resolveWorkspace(rt.store.directory, workspace) }, by),
        async (api) => api({ method: 'POST', path: `/admin/api/workspaces/${await resolveWorkspaceThrough(api, workspace)}/tests`, body: testBody(input) }),
      );
      emit(options, test, () => `created test "${test.title}" (id ${test.id}) in workspace ${test.workspaceId}`);
    });
}
