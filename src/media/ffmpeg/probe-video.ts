/**
 * What a video file holds, as ffprobe reads it, and the checks that tell a playable video
 * from a truncated one or something that is not a video at all.
 */
import type { VideoRegion, VideoRegions } from '../../store/videos.js';
import { FFMPEG, FFPROBE, MediaToolError, runTool } from './run-tool.js';

export interface ProbedVideo {
  durationMs: number;
  /** The screen stream's frame size (the first video stream's when none is marked). */
  width: number;
  height: number;
  hasAudio: boolean;
  /** When the last frame of the first video stream (what a clip is cut from) starts, in ms from the file's start; null when ffprobe cannot tell. */
  lastFrameMs: number | null;
  regions: VideoRegions;
  /** The container and the extension and media type we store it under. */
  container: { extension: string; contentType: string };
}

/** The file is not a video we can serve: the message says why, for the operator. */
export class NotAPlayableVideoError extends Error {
  override name = 'NotAPlayableVideoError';
}

interface ProbeStream {
  index: number;
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  disposition?: { attached_pic?: number };
  tags?: Record<string, string>;
}
interface ProbeOutput {
  streams?: ProbeStream[];
  format?: { format_name?: string; duration?: string; start_time?: string; tags?: Record<string, string> };
}

const PROBE_TIMEOUT_MS = 30_000;
/** How far before the stated end the last frame is looked for (ffprobe starts at the keyframe before). */
const LAST_FRAME_WINDOW_SECONDS = 5;
const DECODE_TIMEOUT_MS = 120_000;

/** Containers we store, by ffprobe's format name; the file's own extension picks among aliases. */
function containerOf(formatName: string, fileName: string): ProbedVideo['container'] | null {
  const extension = fileName.slice(fileName.lastIndexOf('.') + 1).toLowerCase();
  const formats = formatName.split(',');
  if (formats.includes('mp4') || formats.includes('mov')) {
    return extension === 'mov' ? { extension: 'mov', contentType: 'video/quicktime' } : { extension: 'mp4', contentType: 'video/mp4' };
  }
  if (formats.includes('webm') || formats.includes('matroska')) {
    return extension === 'webm' ? { extension: 'webm', contentType: 'video/webm' } : { extension: 'mkv', contentType: 'video/x-matroska' };
  }
  if (formats.includes('avi')) return { extension: 'avi', contentType: 'video/x-msvideo' };
  return null;
}

/** `x,y,width,height` in pixels (a container tag marking where a composite frame shows what). */
function regionTag(value: string | undefined): VideoRegion | undefined {
  const m = value ? /^\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*$/.exec(value) : null;
  return m ? { topLeftPoint: { x: Number(m[1]), y: Number(m[2]) }, widthPx: Number(m[3]), heightPx: Number(m[4]) } : undefined;
}

const wholeFrame = (s: ProbeStream): VideoRegion => ({ topLeftPoint: { x: 0, y: 0 }, widthPx: s.width!, heightPx: s.height! });
const markedAs = (s: ProbeStream, role: string) =>
  [s.tags?.title, s.tags?.handler_name, s.tags?.role].some((tag) => tag?.trim().toLowerCase() === role);

/**
 * Screen and camera regions. A recording with a separate camera stream marks its streams
 * (title/handler_name "screen" and "camera", or just screen first, camera second); a
 * composite recording may tag where each shows in its one frame (`screen_region`,
 * `camera_region`: x,y,width,height). Without either, the whole frame is the screen.
 */
function regionsOf(videoStreams: ProbeStream[], formatTags: Record<string, string>): { regions: VideoRegions; screen: ProbeStream } {
  if (videoStreams.length >= 2) {
    const camera = videoStreams.find((s) => markedAs(s, 'camera')) ?? videoStreams[1]!;
    const screen = videoStreams.find((s) => s !== camera && markedAs(s, 'screen')) ?? videoStreams.find((s) => s !== camera)!;
    return { regions: { screen: wholeFrame(screen), camera: wholeFrame(camera) }, screen };
  }
  const only = videoStreams[0]!;
  const screen = regionTag(formatTags.screen_region) ?? wholeFrame(only);
  const camera = regionTag(formatTags.camera_region);
  return { regions: camera ? { screen, camera } : { screen }, screen: only };
}

/**
 * Probes `file` and proves it plays: ffprobe must find a container we serve, a video
 * stream with a frame size and a duration, and ffmpeg must decode a frame near the end
 * (a truncated file fails there even when its header survived).
 */
export async function probeVideo(file: string): Promise<ProbedVideo> {
  let output: ProbeOutput;
  try {
    const { stdout } = await runTool(FFPROBE, ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', '--', file], PROBE_TIMEOUT_MS);
    output = JSON.parse(stdout) as ProbeOutput;
  } catch (error) {
    if (error instanceof MediaToolError && error.reason === 'failed') throw new NotAPlayableVideoError(`not a playable video (ffprobe: ${error.stderr || 'unreadable'})`);
    throw error;
  }
  const formatName = output.format?.format_name ?? '';
  const container = containerOf(formatName, file);
  if (!container) throw new NotAPlayableVideoError(`not a video container we serve (ffprobe reads it as "${formatName || 'unknown'}"; MP4, MOV, WebM, Matroska and AVI are)`);
  const videoStreams = (output.streams ?? []).filter((s) => s.codec_type === 'video' && !s.disposition?.attached_pic && s.width && s.height);
  if (videoStreams.length === 0) throw new NotAPlayableVideoError('not a playable video: it has no video stream');
  const duration = Number(output.format?.duration);
  if (!Number.isFinite(duration) || duration <= 0) throw new NotAPlayableVideoError('not a playable video: it has no duration');
  const { regions, screen } = regionsOf(videoStreams, output.format?.tags ?? {});
  const durationMs = Math.round(duration * 1000);
  const probed: ProbedVideo = {
    durationMs,
    width: screen.width!,
    height: screen.height!,
    hasAudio: (output.streams ?? []).some((s) => s.codec_type === 'audio'),
    lastFrameMs: await lastFrameMs(file, durationMs, Number(output.format?.start_time ?? 0) || 0),
    regions,
    container,
  };
  await decodesNearEnd(file, probed.durationMs, screen.index);
  return probed;
}

/**
 * When the last frame of the first video stream starts, in ms from the file's start. A clip is
 * cut from that stream by seeking to its start and keeping the frames from there on (re-encoded,
 * so keyframes do not limit where it may start), so this is the latest start that still has a
 * picture. Read from the packets of the last seconds, without decoding; null when ffprobe cannot
 * tell. Times are from the file's own start time, as ffmpeg's -ss counts them.
 */
async function lastFrameMs(file: string, durationMs: number, startSeconds: number): Promise<number | null> {
  const from = Math.max(0, startSeconds + durationMs / 1000 - LAST_FRAME_WINDOW_SECONDS);
  let stdout: string;
  try {
    const args = ['-v', 'error', '-select_streams', 'v:0', '-read_intervals', `${from.toFixed(3)}%`, '-show_entries', 'packet=pts_time,dts_time', '-of', 'csv=p=0', '--', file];
    ({ stdout } = await runTool(FFPROBE, args, PROBE_TIMEOUT_MS));
  } catch (error) {
    if (error instanceof MediaToolError && error.reason === 'failed') return null;
    throw error;
  }
  let last = -Infinity;
  for (const line of stdout.split('\n')) {
    // A packet without a presentation time (some AVI) is placed by its decoding time.
    const [pts, dts] = line.split(',');
    const time = Number(pts && pts !== 'N/A' ? pts : dts);
    if (line.trim() !== '' && Number.isFinite(time) && time > last) last = time;
  }
  // In whole microseconds first, so 5.960000 s is 5960 ms and never 5959.
  return Number.isFinite(last) ? Math.max(0, Math.floor(Math.round((last - startSeconds) * 1e6) / 1e3)) : null;
}

/** Decodes one frame of `streamIndex` from the last second: the file's end is really there. */
async function decodesNearEnd(file: string, durationMs: number, streamIndex: number): Promise<void> {
  const seconds = Math.max(0, durationMs / 1000 - 1).toFixed(3);
  let frames: number;
  try {
    const { stdout } = await runTool(
      FFMPEG,
      ['-nostdin', '-v', 'error', '-xerror', '-ss', seconds, '-i', file, '-map', `0:${streamIndex}`, '-frames:v', '1', '-f', 'framemd5', '-'],
      DECODE_TIMEOUT_MS,
    );
    frames = stdout.split('\n').filter((line) => line && !line.startsWith('#')).length;
  } catch (error) {
    if (error instanceof MediaToolError && error.reason === 'failed') throw new NotAPlayableVideoError(`not a playable video: it is truncated or damaged (${error.stderr || 'ffmpeg could not decode its end'})`);
    throw error;
  }
  if (frames === 0) throw new NotAPlayableVideoError('not a playable video: it is truncated (no frame decodes near its stated end)');
}

/** A JPEG poster frame (at one second in, or mid-way through a shorter video) written to `out`. */
export async function extractPoster(file: string, durationMs: number, out: string): Promise<void> {
  const at = Math.min(1, durationMs / 2000).toFixed(3);
  await runTool(FFMPEG, ['-nostdin', '-v', 'error', '-y', '-ss', at, '-i', file, '-map', '0:v:0', '-frames:v', '1', '-q:v', '3', '-f', 'image2', out], DECODE_TIMEOUT_MS);
}
