// Counts the completed sessions of a test (the ones the API lists), by audience, with the
// results-api SDK (the iterator pages).
// RESULTS_API_CLIENT_ID=... RESULTS_API_CLIENT_SECRET=... RESULTS_API_BASE_URL=https://... \
// RESULTS_API_AUTH_SERVER_ID=aus... node examples/export-sessions.mjs <testId>
import process from 'node:process';
import { ResultsClient } from 'results-api/client';

const { env } = process;
const testId = process.argv[2];
const client = new ResultsClient({
  authUrl: env.RESULTS_API_AUTH_URL ?? env.RESULTS_API_BASE_URL,
  baseUrl: env.RESULTS_API_BASE_URL,
  clientId: env.RESULTS_API_CLIENT_ID,
  clientSecret: env.RESULTS_API_CLIENT_SECRET,
  authorizationServerId: env.RESULTS_API_AUTH_SERVER_ID, // unset: form A (default server)
});

const byAudience = {};
let count = 0;
for await (const session of client.sessionResults(testId)) {
  const audience = session.audienceId ?? 'no audience';
  byAudience[audience] = (byAudience[audience] ?? 0) + 1;
  count++;
}
process.stdout.write(`${count} completed sessions in test ${testId} ${JSON.stringify(byAudience)}\n`);
