import { readFile } from 'node:fs/promises';
import { BadPlanError, parseTestPlan } from '../plans/test-plan.js';
import type { TestPlan } from '../store/store.js';
import { CliError, EXIT_FAILURE, usageError } from './output.js';

/** Reads and checks a test plan file before anything is opened or written. */
export async function readTestPlanFile(path: string): Promise<TestPlan> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw usageError(`cannot read the test plan file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${path} is not JSON: ${(error as Error).message}`, EXIT_FAILURE);
  }
  try {
    return parseTestPlan(parsed);
  } catch (error) {
    if (!(error instanceof BadPlanError)) throw error;
    throw new CliError(
      `${path}: the test plan has ${error.problems.length} problem${error.problems.length === 1 ? '' : 's'}; nothing was written`,
      EXIT_FAILURE,
      error.problems.map((p) => `${path}: ${p}`),
    );
  }
}
