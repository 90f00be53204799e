import { readFile, stat } from 'node:fs/promises';
import { BadPlanError, MAX_PLAN_FILE_BYTES, parseTestPlan } from '../plans/test-plan.js';
import type { TestPlan } from '../store/store.js';
import { CliError, EXIT_FAILURE, usageError } from './output.js';

/** Reads and checks the test plan file of test `testId` before anything is opened or written. */
export async function readTestPlanFile(path: string, testId: string): Promise<TestPlan> {
  let text: string;
  try {
    // Refused before reading: an oversized file is never loaded.
    const { size } = await stat(path);
    if (size > MAX_PLAN_FILE_BYTES) throw new CliError(`${path} is larger than a test plan may be (${MAX_PLAN_FILE_BYTES / 1024 / 1024} MiB; it has ${size} bytes)`, EXIT_FAILURE);
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw usageError(`cannot read the test plan file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${path} is not JSON: ${(error as Error).message}`, EXIT_FAILURE);
  }
  try {
    return parseTestPlan(parsed, testId);
  } catch (error) {
    if (!(error instanceof BadPlanError)) throw error;
    throw new CliError(
      `${path}: the test plan has ${error.problems.length} problem${error.problems.length === 1 ? '' : 's'}; nothing was written`,
      EXIT_FAILURE,
      error.problems.map((p) => `${path}: ${p}`),
    );
  }
}
