/**
 * The `video.download` scenario (issue 15): one session video of N MB (generated with
 * ffmpeg's testsrc, imported with `results-api videos import`) downloaded whole through the
 * signed link the API hands out (GET /media/..., filesystem storage), against a plain
 * node:http server streaming the same file (bench/reference-file-http.mjs). Measured: MB/s of
 * one client, and of four clients at once; interleaved runs, the best of each kept.
 */
import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { URLSearchParams } from 'node:url';
import { promisify } from 'node:util';
import { stop } from './processes.mjs';
import { AUTH_SERVER_ID, childEnv, startReference, startServer } from './servers.mjs';

const run = promisify(execFile);
// Node's own fetch (undici), as a client of the service would use.
const { fetch } = globalThis;
const MB = 1024 * 1024;
/** Bits per second of the generated video; the noise keeps the encoder near it (~6 MB a second). */
const BITRATE = 40_000_000;
const MB_PER_VIDEO_SECOND = 6;

async function cli(cliPath, args, env, cwd) {
  const { stdout } = await run(process.execPath, [cliPath, ...args], { env, cwd, maxBuffer: 16 * MB });
  return stdout;
}

/** Downloads `url` `clients` times at once; resolves to the aggregate MB/s (every byte counted and checked). */
async function download(url, clients, bytes) {
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      const response = await fetch(url);
      if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
      let received = 0;
      for await (const chunk of response.body) received += chunk.length;
      if (received !== bytes) throw new Error(`received ${received} of ${bytes} bytes`);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return Number(((bytes * clients) / MB / seconds).toFixed(1));
}

export async function runVideoDownload({ cli: cliPath, cwd, work, logLevel, megabytes, runs, log }) {
  const databaseUrl = `sqlite:${join(work, 'video.db')}`;
  const media = `file:${join(work, 'media')}`;
  const env = childEnv(logLevel, { DATABASE_URL: databaseUrl, MEDIA_URL: media });
  const file = join(work, 'video.mp4');
  const seconds = Math.max(1, Math.ceil(megabytes / MB_PER_VIDEO_SECOND));
  log(`video.download: generating a ~${megabytes} MB video (${seconds} s of 1280x720 testsrc with noise)`);
  await run('ffmpeg', ['-nostdin', '-v', 'error', '-y', '-f', 'lavfi', '-i', `testsrc=size=1280x720:rate=30:duration=${seconds},noise=alls=80:allf=t+u`,
    '-c:v', 'libx264', '-preset', 'ultrafast', '-b:v', String(BITRATE), '-maxrate', String(BITRATE), '-bufsize', String(BITRATE), '-pix_fmt', 'yuv420p', '-movflags', '+faststart', file]);
  const bytes = statSync(file).size;
  const demo = JSON.parse(await cli(cliPath, ['demo', '--json'], env, cwd));
  const { demoVideoSessionId } = await import(join(cwd, 'dist', 'cli', 'demo.js'));
  const importStarted = performance.now();
  await cli(cliPath, ['videos', 'import', '--session', demoVideoSessionId(), file], env, cwd);
  const importSeconds = (performance.now() - importStarted) / 1000;

  const server = await startServer('server-video', databaseUrl, { logDir: work, logLevel, cwd, cli: cliPath, workers: 1, env: { MEDIA_URL: media } });
  const reference = await startReference('reference-file', 'reference-file-http.mjs', { REF_FILE: file }, { logDir: work, cwd });
  try {
    const tokenResponse = await fetch(`${server.url}/oauth2/${AUTH_SERVER_ID}/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: demo.clientId, client_secret: demo.clientSecret }),
    });
    const { access_token } = await tokenResponse.json();
    const linkResponse = await fetch(`${server.url}/api/v2/sessionResults/${demoVideoSessionId()}/videoDownloadUrl`, {
      headers: { authorization: `Bearer ${access_token}` },
    });
    if (linkResponse.status !== 200) throw new Error(`videoDownloadUrl answered ${linkResponse.status}`);
    const { videoUrl } = await linkResponse.json();
    const results = { ours: { one: [], four: [] }, plain: { one: [], four: [] } };
    // Warm both (page cache, JIT) before measuring.
    await download(videoUrl, 1, bytes);
    await download(reference.url, 1, bytes);
    for (let i = 0; i < runs; i++) {
      results.ours.one.push(await download(videoUrl, 1, bytes));
      results.plain.one.push(await download(reference.url, 1, bytes));
      results.ours.four.push(await download(videoUrl, 4, bytes));
      results.plain.four.push(await download(reference.url, 4, bytes));
    }
    const best = (list) => Math.max(...list);
    return {
      method: 'fetch of the whole file over loopback: the signed link (results-api serve, filesystem storage) vs node:http + fs.createReadStream',
      fileMb: Number((bytes / MB).toFixed(1)),
      importSeconds: Number(importSeconds.toFixed(2)),
      runs: results,
      oursMbPerSec: best(results.ours.one),
      plainMbPerSec: best(results.plain.one),
      oursFourClientsMbPerSec: best(results.ours.four),
      plainFourClientsMbPerSec: best(results.plain.four),
      ratio: Number((best(results.ours.one) / best(results.plain.one)).toFixed(3)),
      ratioFourClients: Number((best(results.ours.four) / best(results.plain.four)).toFixed(3)),
    };
  } finally {
    await stop(server.handle);
    await stop(reference.handle);
  }
}

