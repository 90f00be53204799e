import { conflict, type StoreConflictError } from './conflicts.js';

/**
 * What ffmpeg can cut out of a session video. A clip (or a reel's part) is cut by seeking to its
 * start and keeping the frames from there on, re-encoded: keyframes do not limit where it may
 * start (the decoder starts at the keyframe before and drops what precedes the start), but a
 * start after the video's last frame leaves nothing to keep: the job would make a file without
 * a picture, whose poster cannot be taken, three times over. Such ranges are refused here,
 * before anything is written.
 */

export interface ClipRange {
  startMs: number;
  endMs: number;
}

export interface CutVideo {
  durationMs: number;
  /** When its last frame starts; null for a video imported before this was recorded. */
  lastFrameMs: number | null;
}

/**
 * An import proves a frame decodes within the last second of the video (probe-video.ts), so a
 * start this far before the end has a frame after it even when the last frame's time is unknown.
 */
export const UNRECORDED_LAST_FRAME_MARGIN_MS = 1000;

/** Why `range` cannot be cut from `video`, or null when it can. */
export function clipRangeProblem(range: ClipRange, video: CutVideo): StoreConflictError | null {
  const { startMs, endMs } = range;
  if (endMs <= startMs) return conflict.emptyClip(startMs, endMs);
  if (endMs > video.durationMs) return conflict.clipOutsideVideo(endMs, video.durationMs);
  if (video.lastFrameMs !== null) return startMs > video.lastFrameMs ? conflict.clipAfterLastFrame(startMs, video.lastFrameMs) : null;
  const latestMs = video.durationMs - UNRECORDED_LAST_FRAME_MARGIN_MS;
  return startMs > latestMs ? conflict.clipInLastSecond(startMs, latestMs, video.durationMs) : null;
}

/** Throws clipRangeProblem's refusal, if there is one. */
export function requireCuttable(range: ClipRange, video: CutVideo): void {
  const problem = clipRangeProblem(range, video);
  if (problem) throw problem;
}
