/**
 * Brings a video file in as a session's video: proves it plays, stores it (streaming, never
 * whole in memory) with a poster frame, and records it. Idempotent: the same bytes for the
 * same session change nothing, whatever the file is called. Objects are named by content and
 * shared by every session with the same bytes; one is deleted only when no row names it.
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
import type { EnsureStored, Video, VideoObjects, VideoRepository } from '../store/videos.js';
import { extractPoster, probeVideo } from './ffmpeg/probe-video.js';
import { MediaToolError } from './ffmpeg/run-tool.js';
import type { MediaStorage } from './storage/media-storage.js';

export interface VideoImportDeps {
  sessions: Pick<SessionRepository, 'findSession'>;
  videos: Pick<VideoRepository, 'findVideo' | 'saveVideo' | 'releaseObjects'>;
  storage: MediaStorage;
}

export interface VideoImportResult {
  outcome: 'inserted' | 'updated' | 'unchanged';
  video: Video;
}

/**
 * Where a video and its poster are stored: named by the SHA-256 of the video's bytes alone
 * (under its first two hex digits, so no directory grows past a few thousand entries), so
 * sessions with the same bytes share one object, and a new file never overwrites a served one.
 */
export const videoObjectKey = (sha256: string, extension: string) => `videos/${sha256.slice(0, 2)}/${sha256}.${extension}`;
export const posterObjectKey = (sha256: string) => `videos/${sha256.slice(0, 2)}/${sha256}.poster.jpg`;

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

/** A video file stored (or found stored) under its content's keys, ready to be named by sessions' rows. */
export interface StoredVideoFile {
  objects: VideoObjects;
  /**
   * Stores again whichever of its objects went missing since (a release deleted it when no
   * row named it yet): what the rows' writer calls while holding the objects' locks.
   */
  ensureStored: EnsureStored;
}

/**
 * Proves `file` plays and stores it with a poster frame under its content's keys; objects
 * already stored (the same bytes, another session's) are not stored again. Refuses with
 * NotAPlayableVideoError what does not play. `file` must stay until its rows are written.
 */
export async function storeVideoFile(storage: MediaStorage, file: string): Promise<StoredVideoFile> {
  const size = (await stat(file)).size;
  const probed = await probeVideo(file);
  const sha256 = await sha256Of(file);
  const objectKey = videoObjectKey(sha256, probed.container.extension);
  const posterKey = (await storage.stat(posterObjectKey(sha256))) ? posterObjectKey(sha256) : await storePoster(storage, file, probed.durationMs, posterObjectKey(sha256));
  const stored = (await storage.stat(objectKey))?.size === size ? size : (await storage.putFile(objectKey, file, probed.container.contentType)).size;
  const objects: VideoObjects = {
    objectKey,
    posterKey,
    contentSha256: sha256,
    contentType: probed.container.contentType,
    sizeBytes: stored,
    durationMs: probed.durationMs,
    lastFrameMs: probed.lastFrameMs,
    width: probed.width,
    height: probed.height,
    hasAudio: probed.hasAudio,
    regions: probed.regions,
  };
  const ensureStored = async () => {
    if ((await storage.stat(objectKey))?.size !== size) await storage.putFile(objectKey, file, probed.container.contentType);
    if (posterKey && !(await storage.stat(posterKey))) await storePoster(storage, file, probed.durationMs, posterKey);
  };
  return { objects, ensureStored };
}

/**
 * Deletes those of `keys` that no session's video names any more (sessions share objects: see
 * videoObjectKey). What cannot be deleted stays behind, unreferenced and harmless.
 */
export const releaseVideoObjects = (deps: Pick<VideoImportDeps, 'videos' | 'storage'>, keys: readonly (string | null)[]) =>
  deps.videos.releaseObjects(keys, (key) => deps.storage.delete(key));

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

  const { objects, ensureStored } = await storeVideoFile(deps.storage, file);
  const existing = await deps.videos.findVideo(sessionId);
  // The same bytes already recorded (with its last frame's time, which videos imported before
  // it was lack) and stored: nothing to do.
  if (existing?.contentSha256 === objects.contentSha256 && existing.objectKey === objects.objectKey && existing.lastFrameMs !== null) {
    return { outcome: 'unchanged', video: existing };
  }
  let saved;
  try {
    saved = await deps.videos.saveVideo({ sessionId, ...objects }, by, ensureStored);
  } catch (error) {
    // Not recorded: what was stored for it goes, unless another session's video names it.
    await releaseVideoObjects(deps, [objects.objectKey, objects.posterKey]).catch(() => undefined);
    throw error;
  }
  // The replaced video's objects go when no other session's video names them.
  if (saved.replaced) await releaseVideoObjects(deps, [saved.replaced.objectKey, saved.replaced.posterKey]);
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
