import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JobHandler } from '../jobs/job-runner.js';
import { FilesystemMediaStorage } from '../media/storage/filesystem-storage.js';
import type { MediaStorage } from '../media/storage/media-storage.js';
import { clipObjectKey, clipPosterKey, type ClipRepository } from '../store/clips.js';
import type { VideoRepository } from '../store/videos.js';
import { runFfmpeg } from './run-ffmpeg.js';

/** Milliseconds as ffmpeg's seconds, to the millisecond. */
export const seconds = (ms: number) => (ms / 1000).toFixed(3);

/**
 * ffmpeg's arguments to cut [startMs, endMs) of `input` into an MP4 at `output` that any
 * browser plays and can start before it has all of it (H.264/AAC, index first). Seeking
 * before the input is fast and, re-encoding, frame-accurate. One thread: a clip must not
 * take the cores the API answers on.
 */
export function cutClipArgs(input: string, startMs: number, endMs: number, output: string): string[] {
  return [
    '-ss', seconds(startMs), '-i', input, '-t', seconds(endMs - startMs),
    '-map', '0:v:0', '-map', '0:a:0?',
    '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', '-pix_fmt', 'yuv420p',
    '-c:a', 'aac', '-b:a', '128k',
    '-threads', '1', '-movflags', '+faststart', '-f', 'mp4', '-y', output,
  ];
}

/** The first frame of `video` as a JPEG, for a player's poster. */
export function posterArgs(video: string, output: string): string[] {
  return ['-i', video, '-frames:v', '1', '-q:v', '4', '-threads', '1', '-y', output];
}

/**
 * What ffmpeg reads an object from: the file itself on the filesystem backend, otherwise a
 * short-lived presigned link (ffmpeg seeks in it with HTTP ranges, so no copy is made first).
 */
export async function mediaInput(media: MediaStorage, key: string): Promise<string> {
  if (media instanceof FilesystemMediaStorage) return media.pathOf(key);
  return (await media.signedUrl(key, { expiresInSeconds: 3600 })).url;
}

/**
 * The `clip.generate` job: cuts the clip from its session video, extracts its poster, and
 * stores both under keys named by the clip. Running it again (after a crash, or a retry)
 * writes the same two objects again: a clip never has two outputs.
 */
export function clipJobHandler(deps: { clips: ClipRepository; videos: VideoRepository; media: MediaStorage }): JobHandler {
  return async (job, { signal }) => {
    const clipId = String(job.payload.clipId);
    const clip = await deps.clips.findClip(clipId);
    if (!clip) throw new Error(`clip ${clipId} no longer exists`);
    const video = await deps.videos.findVideo(clip.sessionId);
    if (!video) throw new Error(`session ${clip.sessionId} has no video to cut the clip from`);
    const work = await mkdtemp(join(tmpdir(), 'results-api-clip-'));
    try {
      const cut = join(work, 'clip.mp4');
      const poster = join(work, 'poster.jpg');
      await runFfmpeg(cutClipArgs(await mediaInput(deps.media, video.objectKey), clip.startMs, clip.endMs, cut), signal);
      await runFfmpeg(posterArgs(cut, poster), signal);
      // The poster first: once the clip's object exists, so does its poster.
      await deps.media.putFile(clipPosterKey(clipId), poster, 'image/jpeg');
      await deps.media.putFile(clipObjectKey(clipId), cut, 'video/mp4');
    } finally {
      await rm(work, { recursive: true, force: true });
    }
    return (tx) => deps.clips.recordGenerated(tx, clip);
  };
}
