// Counts the completed sessions of a test (the ones the API lists) by audience, with the
// results-api SDK: its iterator pages through the whole test.
//
//   node examples/sessions-by-audience.mjs <testId>
import process from 'node:process';
import { ENVIRONMENT_HELP, UsageError, clientFromEnv, run } from './client-from-env.mjs';

const USAGE = `Usage: node examples/sessions-by-audience.mjs <testId>

Prints how many completed sessions the test has, in all and by audience ("no audience" for
sessions without one).

${ENVIRONMENT_HELP}`;

await run(USAGE, async () => {
  const args = process.argv.slice(2);
  if (args[0] === '--help' || args[0] === '-h') return void process.stdout.write(`${USAGE}\n`);
  if (args.length !== 1) throw new UsageError(args.length === 0 ? 'the test id is missing' : `one test id, please (got ${args.length} arguments)`);
  const [testId] = args;
  const client = clientFromEnv();
  const byAudience = {};
  let count = 0;
  for await (const session of client.sessionResults(testId)) {
    const audience = session.audienceId ?? 'no audience';
    byAudience[audience] = (byAudience[audience] ?? 0) + 1;
    count++;
  }
  process.stdout.write(`${count} completed sessions in test ${testId} ${JSON.stringify(byAudience)}\n`);
});
