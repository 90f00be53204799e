// Exports every completed session of a test (the ones the API lists) as NDJSON or CSV, to a
// file or stdout, with the results-api SDK: its iterator pages through the whole test.
//
//   node examples/export-sessions.mjs <testId> [--format ndjson|csv] [--out FILE]
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import process from 'node:process';
import { finished } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { ENVIRONMENT_HELP, UsageError, clientFromEnv, run } from './client-from-env.mjs';

const USAGE = `Usage: node examples/export-sessions.mjs <testId> [--format ndjson|csv] [--out FILE]

Writes every completed session of the test (sessionId, audienceId, status, startTime,
finishTime): NDJSON, one JSON object a line (the default), or CSV with a header row (RFC 4180).
Without --out, to stdout. With --out, FILE appears only once the export is complete.

${ENVIRONMENT_HELP}`;

const COLUMNS = ['sessionId', 'audienceId', 'status', 'startTime', 'finishTime'];

/** RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled; null is empty. */
const csvField = (value) => (value === null ? '' : /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);
const csvRecord = (values) => `${values.map(csvField).join(',')}\r\n`;

const FORMATS = {
  ndjson: { header: '', encode: (s) => `${JSON.stringify(Object.fromEntries(COLUMNS.map((c) => [c, s[c]])))}\n` },
  csv: { header: csvRecord(COLUMNS), encode: (s) => csvRecord(COLUMNS.map((c) => s[c])) },
};

function parse(argv) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { format: { type: 'string', default: 'ndjson' }, out: { type: 'string' }, help: { type: 'boolean' } } });
  } catch (err) {
    throw new UsageError(err.message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { help: true };
  if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? 'the test id is missing' : `one test id, please (got ${positionals.length} arguments)`);
  if (!(values.format in FORMATS)) throw new UsageError(`--format must be ndjson or csv (got "${values.format}")`);
  if (values.out === '') throw new UsageError('--out needs a file name');
  return { testId: positionals[0], format: FORMATS[values.format], out: values.out };
}

/** Writes `text`, waiting while the stream's buffer is full (a slow disk or reader). */
async function write(stream, text) {
  if (!stream.write(text)) await once(stream, 'drain');
}

await run(USAGE, async () => {
  const args = parse(process.argv.slice(2));
  if (args.help) return void process.stdout.write(`${USAGE}\n`);
  const client = clientFromEnv();
  const partial = args.out && `${args.out}.partial`;
  const stream = partial ? createWriteStream(partial) : process.stdout;
  let count = 0;
  try {
    await write(stream, args.format.header);
    for await (const session of client.sessionResults(args.testId)) {
      await write(stream, args.format.encode(session));
      count++;
    }
    if (partial) {
      stream.end();
      await finished(stream);
      await rename(partial, args.out);
      process.stderr.write(`exported ${count} sessions of test ${args.testId} to ${args.out}\n`);
    }
  } catch (err) {
    if (partial) {
      stream.destroy();
      await rm(partial, { force: true });
    }
    throw err;
  }
});
