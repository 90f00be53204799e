#!/usr/bin/env node
import { exitWhenReaderLeaves } from './reader-gone.js';
import { reportError } from './output.js';
import { buildProgram } from './program.js';

exitWhenReaderLeaves(process);

try {
  await (await buildProgram(process.argv[2])).parseAsync(process.argv);
} catch (err) {
  process.exitCode = reportError(err);
}
