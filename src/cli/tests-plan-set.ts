import type { Command } from 'commander';
import { setTestPlan } from '../operations/directory.js';
import { uuidArgument } from './arguments.js';
import { ADMIN_CLIENT_ID_OPTION, ADMIN_CLIENT_SECRET_OPTION, ENDPOINT_OPTION, perform, type EndpointOptions } from './endpoint.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, type OutputOptions } from './output.js';
import { readTestPlanFile } from './test-plan-file.js';

/** `tests plan`: a test's plan, its tasks and task groups; `tests plan set` replaces it from a file. */
export function registerTestsPlanCommands(tests: Command): void {
  const plan = tests.command('plan').description("a test's plan: its tasks and task groups");
  plan
    .command('set')
    .description(
      'replace the test plan of a test with the plan in a JSON file: {"id"?, "shortTest"?, "taskGroups"?: [{"id", "type"}], ' +
        '"tasks": [{"text", "taskType", "taskGroupId"?, "choices"?, ...}]}; checked field by field, nothing written unless all is right',
    )
    .requiredOption('--test <uuid>', 'the test id')
    .argument('<file.json>', 'the test plan')
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .option(...ENDPOINT_OPTION)
    .option(...ADMIN_CLIENT_ID_OPTION)
    .option(...ADMIN_CLIENT_SECRET_OPTION)
    .action(async (file: string, options: OutputOptions & EndpointOptions & { test: string }) => {
      const testId = uuidArgument('--test', options.test);
      const testPlan = await readTestPlanFile(file, testId);
      const test = await perform(options, (rt, by) => setTestPlan(rt, testId, testPlan, by), {
        method: 'PUT',
        path: `/admin/api/tests/${testId}/plan`,
        body: testPlan,
      });
      emit(options, test, () => `set the test plan of "${test.title}" (id ${test.id}): ${testPlan.tasks.length} tasks`);
    });
}
