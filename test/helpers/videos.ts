/** Small real videos for the media tests, made once per suite with ffmpeg's test sources. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateTestVideo, type TestVideoOptions } from '../../src/media/ffmpeg/test-video.js';
import { requireBinaries } from './throwaway.js';

/** Whether ffmpeg and ffprobe are installed: a failure in CI, a visible skip elsewhere. */
export const hasFfmpeg = (): boolean => requireBinaries('ffmpeg', 'ffprobe');

export async function makeVideo(dir: string, name: string, options: TestVideoOptions = {}): Promise<string> {
  const path = join(dir, name);
  await generateTestVideo(path, options);
  return path;
}

/** The first `fraction` of `source`'s bytes: a download or copy cut short. */
export function truncatedCopy(source: string, out: string, fraction = 0.6): string {
  const bytes = readFileSync(source);
  writeFileSync(out, bytes.subarray(0, Math.floor(bytes.length * fraction)));
  return out;
}
