/** Real videos for the clip and reel tests (made by generateTestVideo), stored as an import would; their length by ffprobe. */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { FFPROBE, runTool } from '../../src/media/ffmpeg/run-tool.js';
import type { Runtime } from '../../src/runtime.js';
import type { Video } from '../../src/store/videos.js';

/** Stores `path` as the session's video (what `videos import` records), with a screen region. */
export async function attachVideo(
  runtime: Runtime,
  sessionId: string,
  path: string,
  durationMs = 4000,
  shape: { hasAudio: boolean; width: number; height: number } = { hasAudio: true, width: 320, height: 240 },
): Promise<Video> {
  const objectKey = `videos/${sessionId}.mp4`;
  await runtime.media.storage.putFile(objectKey, path, 'video/mp4');
  const saved = await runtime.store.videos.saveVideo(
    {
      sessionId,
      objectKey,
      posterKey: null,
      contentSha256: createHash('sha256').update(readFileSync(path)).digest('hex'),
      contentType: 'video/mp4',
      sizeBytes: statSync(path).size,
      durationMs,
      width: shape.width,
      height: shape.height,
      hasAudio: shape.hasAudio,
      regions: { screen: { topLeftPoint: { x: 0, y: 0 }, widthPx: shape.width, heightPx: shape.height } },
    },
    { actor: 'test' },
  );
  return saved.video;
}

/** A media file's duration in milliseconds, by ffprobe. */
export async function probeDurationMs(pathOrUrl: string): Promise<number> {
  const { stdout } = await runTool(FFPROBE, ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', pathOrUrl], 30_000);
  return Math.round(Number(stdout.trim()) * 1000);
}
