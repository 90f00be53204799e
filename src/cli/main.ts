#!/usr/bin/env node
import { reportError } from './output.js';
import { buildProgram } from './program.js';

try {
  await (await buildProgram(process.argv[2])).parseAsync(process.argv);
} catch (err) {
  process.exitCode = reportError(err);
}
