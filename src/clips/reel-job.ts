import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JobHandler } from '../jobs/job-runner.js';
import type { MediaStorage } from '../media/storage/media-storage.js';
import type { ClipRepository } from '../store/clips.js';
import { reelObjectKey, reelPosterKey, type ReelRepository } from '../store/reels.js';
import type { VideoRepository } from '../store/videos.js';
import { mediaInput, posterArgs, seconds } from './clip-job.js';
import { runFfmpeg } from './run-ffmpeg.js';

const MAX_WIDTH = 1280;
const even = (n: number) => Math.max(2, Math.round(n / 2) * 2);

/** The reel's frame: the first clip's video's, at most 1280 wide, in even pixels (what H.264 needs). */
export function reelFrame(width: number, height: number): { width: number; height: number } {
  if (!(width > 0 && height > 0)) return { width: MAX_WIDTH, height: 720 };
  const scale = Math.min(1, MAX_WIDTH / width);
  return { width: even(width * scale), height: even(height * scale) };
}

/**
 * ffmpeg's arguments to cut one clip as a part of a reel: every part gets the same frame size
 * (letterboxed), frame rate, and sound format (silence when the video has none), so the parts
 * can then be joined without encoding them again.
 */
export function reelPartArgs(
  input: string,
  clip: { startMs: number; endMs: number },
  hasAudio: boolean,
  frame: { width: number; height: number },
  output: string,
): string[] {
  const { width: w, height: h } = frame;
  return [
    '-ss', seconds(clip.startMs), '-i', input,
    ...(hasAudio ? [] : ['-f', 'lavfi', '-i', 'anullsrc=r=48000:cl=stereo']),
    '-t', seconds(clip.endMs - clip.startMs),
    '-map', '0:v:0', '-map', hasAudio ? '0:a:0' : '1:a:0',
    '-vf', `scale=${w}:${h}:force_original_aspect_ratio=decrease,pad=${w}:${h}:(ow-iw)/2:(oh-ih)/2,setsar=1,fps=30`,
    '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', '-pix_fmt', 'yuv420p',
    '-c:a', 'aac', '-ar', '48000', '-ac', '2', '-b:a', '128k',
    '-threads', '1', '-f', 'mp4', '-y', output,
  ];
}

/** ffmpeg's arguments to join the parts listed in `list` (the concat demuxer's file) without encoding. */
export function joinPartsArgs(list: string, output: string): string[] {
  return ['-f', 'concat', '-safe', '0', '-i', list, '-c', 'copy', '-movflags', '+faststart', '-f', 'mp4', '-y', output];
}

/**
 * The `reel.generate` job: cuts each clip of the reel from its session video into a uniform
 * part, joins the parts in order, extracts a poster, and stores both under keys named by the
 * reel (running it again writes the same two objects).
 */
export function reelJobHandler(deps: { reels: ReelRepository; clips: ClipRepository; videos: VideoRepository; media: MediaStorage }): JobHandler {
  return async (job, { signal }) => {
    const reelId = String(job.payload.reelId);
    const reel = await deps.reels.findReel(reelId);
    if (!reel) throw new Error(`highlight reel ${reelId} no longer exists`);
    const work = await mkdtemp(join(tmpdir(), 'results-api-reel-'));
    try {
      const parts: string[] = [];
      let frame: { width: number; height: number } | undefined;
      for (const [i, clipId] of reel.clipIds.entries()) {
        const clip = await deps.clips.findClip(clipId);
        if (!clip) throw new Error(`clip ${clipId} of the reel no longer exists`);
        const video = await deps.videos.findVideo(clip.sessionId);
        if (!video) throw new Error(`session ${clip.sessionId} has no video to cut clip ${clipId} from`);
        frame ??= reelFrame(video.width, video.height);
        const part = join(work, `part-${i}.mp4`);
        await runFfmpeg(reelPartArgs(await mediaInput(deps.media, video.objectKey), clip, video.hasAudio, frame, part), signal);
        parts.push(part);
      }
      const list = join(work, 'parts.txt');
      await writeFile(list, parts.map((p) => `file '${p}'\n`).join(''));
      const out = join(work, 'reel.mp4');
      const poster = join(work, 'poster.jpg');
      await runFfmpeg(joinPartsArgs(list, out), signal);
      await runFfmpeg(posterArgs(out, poster), signal);
      await deps.media.putFile(reelPosterKey(reelId), poster, 'image/jpeg');
      await deps.media.putFile(reelObjectKey(reelId), out, 'video/mp4');
    } finally {
      await rm(work, { recursive: true, force: true });
    }
    return (tx) => deps.reels.recordGenerated(tx, reel);
  };
}
