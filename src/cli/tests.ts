import type { Command } from 'commander';
import { registerTestsCreateCommand } from './tests-create.js';
import { registerTestsListCommand } from './tests-list.js';
import { registerTestsPlanCommands } from './tests-plan-set.js';

/** `tests`: the studies whose sessions the Results API lists. */
export function registerTests(program: Command): void {
  const tests = program.command('tests').description('tests (whose sessions the API lists)');
  registerTestsCreateCommand(tests);
  registerTestsListCommand(tests);
  registerTestsPlanCommands(tests);
}
