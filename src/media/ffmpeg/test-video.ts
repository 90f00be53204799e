import { FFMPEG, runTool } from './run-tool.js';

export interface TestVideoOptions {
  seconds?: number;
  /** WIDTHxHEIGHT. */
  size?: string;
  /** Frames a second (default 25). */
  rate?: number;
  /** Which of ffmpeg's test pictures (default testsrc). */
  picture?: 'testsrc' | 'testsrc2' | 'smptebars' | 'rgbtestsrc';
  /** The tone's frequency in Hz (default 440). */
  toneHz?: number;
  /** The tone's sample rate in Hz (default 44100) and its AAC bit rate in kb/s (default 64): lower for long videos made fast. */
  audioSampleRate?: number;
  audioKbps?: number;
  audio?: boolean;
  /** A second video stream marked "camera" (a separate webcam recording). */
  camera?: boolean;
  /** Container tags (e.g. camera_region=x,y,w,h of a composite recording). */
  tags?: Record<string, string>;
  /** How long ffmpeg may take (default a minute). */
  timeoutMs?: number;
}

/**
 * Writes a short H.264/AAC MP4 made by ffmpeg's test sources (testsrc picture, a sine tone),
 * playable in any browser: what `demo` seeds and what the tests import.
 */
export async function generateTestVideo(out: string, options: TestVideoOptions = {}): Promise<void> {
  const seconds = String(options.seconds ?? 2);
  const size = options.size ?? '320x240';
  const picture = `${options.picture ?? 'testsrc'}=size=${size}:rate=${options.rate ?? 25}:duration=${seconds}`;
  const args = ['-nostdin', '-v', 'error', '-y', '-f', 'lavfi', '-i', picture];
  if (options.audio !== false) args.push('-f', 'lavfi', '-i', `sine=frequency=${options.toneHz ?? 440}:sample_rate=${options.audioSampleRate ?? 44_100}:duration=${seconds}`);
  if (options.camera) args.push('-f', 'lavfi', '-i', `testsrc2=size=160x120:rate=25:duration=${seconds}`);
  const cameraInput = options.audio !== false ? 2 : 1;
  args.push('-map', '0:v');
  if (options.audio !== false) args.push('-map', '1:a', '-c:a', 'aac', '-b:a', `${options.audioKbps ?? 64}k`);
  if (options.camera) args.push('-map', `${cameraInput}:v`, '-metadata:s:v:1', 'handler_name=camera', '-metadata:s:v:0', 'handler_name=screen');
  for (const [name, value] of Object.entries(options.tags ?? {})) args.push('-metadata', `${name}=${value}`);
  // Baseline-friendly H.264 in yuv420p with the index up front: plays and seeks in every browser.
  args.push('-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-movflags', options.tags ? '+faststart+use_metadata_tags' : '+faststart', out);
  await runTool(FFMPEG, args, options.timeoutMs ?? 60_000);
}
