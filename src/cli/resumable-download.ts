import { createWriteStream } from 'node:fs';
import { rename, stat } from 'node:fs/promises';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** No byte for this long and the download is abandoned (it resumes from where it stopped next time). */
export const STALL_MS = 60_000;

export interface DownloadProgress {
  (done: number, total: number): void;
}

/** What a download did: fetched whole, resumed from `resumedFrom` bytes, or found complete. */
export interface DownloadResult {
  bytes: number;
  resumedFrom: number;
}

export class DownloadError extends Error {
  override name = 'DownloadError';
}

/**
 * GETs `url` into `target`, through `<target>.part`: a download cut short (interrupt, lost
 * connection, stall) leaves the part file, and the next call asks only for the rest
 * (`Range: bytes=<part size>-`); a server that answers 200 instead is downloaded again from
 * the start. `target` appears only once complete, with the length the server announced.
 */
export async function resumableDownload(
  url: string,
  target: string,
  options: { onProgress?: DownloadProgress; signal?: AbortSignal; stallMs?: number } = {},
): Promise<DownloadResult> {
  const part = `${target}.part`;
  const have = await stat(part).then(
    (s) => s.size,
    () => 0,
  );
  const stall = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stall.signal]) : stall.signal;
  let timer = setTimeout(() => stall.abort(new DownloadError('no data for too long')), options.stallMs ?? STALL_MS);
  const alive = () => {
    clearTimeout(timer);
    timer = setTimeout(() => stall.abort(new DownloadError('no data for too long')), options.stallMs ?? STALL_MS);
  };
  try {
    const response = await fetch(url, { signal, headers: have > 0 ? { range: `bytes=${have}-` } : {} });
    let start = 0;
    let total: number;
    if (response.status === 206) {
      const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(response.headers.get('content-range') ?? '');
      if (!m || Number(m[1]) !== have) throw new DownloadError(`the server answered another range (${response.headers.get('content-range')})`);
      start = have;
      total = Number(m[3]);
    } else if (response.status === 416 && have > 0) {
      // The part file already holds everything (the rename was what got interrupted).
      const size = /^bytes \*\/(\d+)$/.exec(response.headers.get('content-range') ?? '')?.[1];
      await response.body?.cancel();
      if (Number(size) !== have) throw new DownloadError(`the part file is larger than the video (${have} > ${size} bytes); delete ${part}`);
      await rename(part, target);
      return { bytes: have, resumedFrom: have };
    } else if (response.status === 200) {
      total = Number(response.headers.get('content-length') ?? NaN);
    } else {
      await response.body?.cancel();
      throw new DownloadError(`the download link answered ${response.status}${response.status === 403 ? ' (expired or refused)' : ''}`);
    }
    let done = start;
    options.onProgress?.(done, total);
    const count = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        done += chunk.length;
        alive();
        options.onProgress?.(done, total);
        callback(null, chunk);
      },
    });
    await pipeline(Readable.fromWeb(response.body! as import('node:stream/web').ReadableStream), count, createWriteStream(part, { flags: start > 0 ? 'a' : 'w' }));
    if (Number.isFinite(total) && done !== total) throw new DownloadError(`the download ended after ${done} of ${total} bytes`);
    await rename(part, target);
    return { bytes: done, resumedFrom: start };
  } catch (error) {
    if (stall.signal.aborted) throw stall.signal.reason as Error;
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
