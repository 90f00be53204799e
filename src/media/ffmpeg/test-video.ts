import { FFMPEG, runTool } from './run-tool.js';

export interface TestVideoOptions {
  seconds?: number;
  /** WIDTHxHEIGHT. */
  size?: string;
  audio?: boolean;
  /** A second video stream marked "camera" (a separate webcam recording). */
  camera?: boolean;
  /** Container tags (e.g. camera_region=x,y,w,h of a composite recording). */
  tags?: Record<string, string>;
}

/**
 * Writes a short H.264/AAC MP4 made by ffmpeg's test sources (testsrc picture, a sine tone),
 * playable in any browser: what `demo` seeds and what the tests import.
 */
export async function generateTestVideo(out: string, options: TestVideoOptions = {}): Promise<void> {
  const seconds = String(options.seconds ?? 2);
  const size = options.size ?? '320x240';
  const args = ['-nostdin', '-v', 'error', '-y', '-f', 'lavfi', '-i', `testsrc=size=${size}:rate=25:duration=${seconds}`];
  if (options.audio !== false) args.push('-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`);
  if (options.camera) args.push('-f', 'lavfi', '-i', `testsrc2=size=160x120:rate=25:duration=${seconds}`);
  const cameraInput = options.audio !== false ? 2 : 1;
  args.push('-map', '0:v');
  if (options.audio !== false) args.push('-map', '1:a', '-c:a', 'aac', '-b:a', '64k');
  if (options.camera) args.push('-map', `${cameraInput}:v`, '-metadata:s:v:1', 'handler_name=camera', '-metadata:s:v:0', 'handler_name=screen');
  for (const [name, value] of Object.entries(options.tags ?? {})) args.push('-metadata', `${name}=${value}`);
  // Baseline-friendly H.264 in yuv420p with the index up front: plays and seeks in every browser.
  args.push('-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-movflags', options.tags ? '+faststart+use_metadata_tags' : '+faststart', out);
  await runTool(FFMPEG, args, 60_000);
}
