/**
 * Every example of docs/API.md runs, pasted into bash, against a server holding the demo's data,
 * and answers what the guide shows: a command block followed by a JSON block must print that
 * JSON (a string shown ending in `…` stands for any string that begins as shown); any other
 * command block must get only 2xx answers.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_TEST_ID, demoVideoSessionId } from '../../src/cli/demo.js';
import { startDemoDeployment } from '../helpers/demo-deployment.js';
import { fencedBlocks, readRepoFile } from '../helpers/markdown.js';
import { hasFfmpeg } from '../helpers/videos.js';

const run = promisify(execFile);
const examples = fencedBlocks(readRepoFile('docs/API.md')).filter((b) => b.language === 'bash');

/** `shown` with each string ending in `…` turned into "any string beginning so". */
function asExpected(shown: unknown): unknown {
  if (typeof shown === 'string' && shown.endsWith('…')) return expect.stringMatching(new RegExp(`^${shown.slice(0, -1).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  if (Array.isArray(shown)) return shown.map(asExpected);
  if (shown !== null && typeof shown === 'object') return Object.fromEntries(Object.entries(shown).map(([k, v]) => [k, asExpected(v)]));
  return shown;
}

// The clip and reel examples need the demo's video, which ffmpeg makes; CI has it.
const skip = !hasFfmpeg() && process.env.CI !== 'true';
if (skip) console.warn('\n⚠ SKIPPED test/docs/api-guide.test.ts: no ffmpeg/ffprobe, so the demo has no video (apt-get install ffmpeg).\n');

describe.skipIf(skip)('the API guide (docs/API.md)', async () => {
  const { t, clientId, clientSecret, authorizationServerId } = await startDemoDeployment();
  const cwd = mkdtempSync(join(tmpdir(), 'results-api-api-guide-'));
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));
  const session = demoVideoSessionId();
  const [clip] = await t.runtime.store.clips.listClips(session);
  const [reel] = await t.runtime.store.reels.listReels(DEMO_TEST_ID);

  /** A token as the quick start mints it (form B); a fresh one once an example revoked it. */
  async function token(): Promise<string> {
    const res = await fetch(`${t.url}/oauth2/${authorizationServerId}/v1/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'studies:read', client_id: clientId, client_secret: clientSecret }),
    });
    return ((await res.json()) as { access_token: string }).access_token;
  }

  it('has examples', () => {
    expect(examples.length).toBeGreaterThan(10);
  });

  // In the guide's order: the token example runs first, so its token is freshly signed (expires_in 3600).
  it.each(examples.map((example) => [example.code.split('\n')[0]!, example] as const))('%s', async (_, example) => {
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: cwd, // bash reads ~/.bashrc when its stdin is a socket; the user's must not speak here
      AUTH: t.url,
      BASE: t.url,
      CLIENT_ID: clientId,
      CLIENT_SECRET: clientSecret,
      SERVER: authorizationServerId,
      TOKEN: example.code.includes('$TOKEN') ? await token() : '',
      TEST: DEMO_TEST_ID,
      SESSION: session,
      CLIP: clip!.id,
      REEL: reel!.id,
    };
    // Each curl also writes its answer's status to stderr, one a line.
    const script = `set -euo pipefail\ncurl() { command curl -w '%{stderr}%{http_code}\\n' "$@"; }\n${example.code}`;
    const { stdout, stderr } = await run('bash', ['-c', script], { env, cwd });
    const statuses = stderr.trim().split('\n');
    expect(statuses.length).toBeGreaterThan(0);
    if (example.next?.language === 'json') {
      expect(JSON.parse(stdout)).toEqual(asExpected(JSON.parse(example.next.code)));
    } else {
      expect(statuses, stdout).toEqual(statuses.map(() => expect.stringMatching(/^2\d\d$/)));
    }
  });
});
