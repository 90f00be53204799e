/**
 * Brings a video file in as a session's video: proves it plays, stores it (streaming, never
 * whole in memory) with a poster frame, and records it. Idempotent: the same bytes for the
 * same session change nothing, whatever the file is called.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { conflict } from '../store/conflicts.js';
import type { SessionRepository } from '../store/sessions.js';
import type { Actor } from '../store/store.js';
import type { Video, VideoRepository } from '../store/videos.js';
import { extractPoster, probeVideo } from './ffmpeg/probe-video.js';
import { MediaToolError } from './ffmpeg/run-tool.js';
import type { MediaStorage } from './storage/media-storage.js';

export interface VideoImportDeps {
  sessions: Pick<SessionRepository, 'findSession'>;
  videos: Pick<VideoRepository, 'findVideo' | 'saveVideo'>;
  storage: MediaStorage;
}

export interface VideoImportResult {
  outcome: 'inserted' | 'updated' | 'unchanged';
  video: Video;
}

/** Where a session's video and poster are stored: named by content, so a new file never overwrites a served one. */
export const videoObjectKey = (sessionId: string, sha256: string, extension: string) => `videos/${sessionId}/${sha256}.${extension}`;
export const posterObjectKey = (sessionId: string, sha256: string) => `videos/${sessionId}/${sha256}.poster.jpg`;

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

/**
 * Imports `file` as the video of `sessionId` (which must exist; with `testId`, it must also
 * belong to that test). Refuses with NotAPlayableVideoError what does not play.
 */
export async function importVideo(
  deps: VideoImportDeps,
  input: { sessionId: string; file: string; testId?: string },
  by: Actor,
): Promise<VideoImportResult> {
  const { sessionId, file } = input;
  const session = await deps.sessions.findSession(sessionId);
  if (!session) throw conflict.noSession(sessionId);
  if (input.testId !== undefined && session.testId !== input.testId) throw conflict.foreignSession(sessionId);
  const size = (await stat(file)).size;

  const probed = await probeVideo(file);
  const sha256 = await sha256Of(file);
  const objectKey = videoObjectKey(sessionId, sha256, probed.container.extension);
  const existing = await deps.videos.findVideo(sessionId);
  // The same bytes already stored and recorded: nothing to do (a lost object is stored again; a
  // video recorded before its last frame's time was is recorded again, with it).
  if (existing?.contentSha256 === sha256 && existing.objectKey === objectKey && existing.lastFrameMs !== null && (await deps.storage.stat(objectKey))?.size === size) {
    return { outcome: 'unchanged', video: existing };
  }

  const posterKey = await storePoster(deps.storage, file, probed.durationMs, posterObjectKey(sessionId, sha256));
  const stored = await deps.storage.putFile(objectKey, file, probed.container.contentType);
  let saved;
  try {
    saved = await deps.videos.saveVideo(
      {
        sessionId,
        objectKey,
        posterKey,
        contentSha256: sha256,
        contentType: probed.container.contentType,
        sizeBytes: stored.size,
        durationMs: probed.durationMs,
        lastFrameMs: probed.lastFrameMs,
        width: probed.width,
        height: probed.height,
        hasAudio: probed.hasAudio,
        regions: probed.regions,
      },
      by,
    );
  } catch (error) {
    // Not recorded: nothing may point at these objects, unless an earlier import of the same bytes does.
    if (existing?.contentSha256 !== sha256) {
      await deps.storage.delete(objectKey).catch(() => undefined);
      if (posterKey) await deps.storage.delete(posterKey).catch(() => undefined);
    }
    throw error;
  }
  // The replaced video's objects are no longer referenced by anything.
  const replaced = saved.replaced;
  if (replaced && replaced.objectKey !== objectKey) await deps.storage.delete(replaced.objectKey).catch(() => undefined);
  if (replaced?.posterKey && replaced.posterKey !== posterKey) await deps.storage.delete(replaced.posterKey).catch(() => undefined);
  return { outcome: saved.outcome, video: saved.video };
}

/** The poster frame, stored; null when ffmpeg cannot make one (the video itself still plays). */
async function storePoster(storage: MediaStorage, file: string, durationMs: number, key: string): Promise<string | null> {
  const dir = await mkdtemp(join(tmpdir(), 'results-api-poster-'));
  try {
    const out = join(dir, 'poster.jpg');
    try {
      await extractPoster(file, durationMs, out);
    } catch (error) {
      if (error instanceof MediaToolError && error.reason === 'failed') return null;
      throw error;
    }
    await storage.putFile(key, out, 'image/jpeg');
    return key;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
