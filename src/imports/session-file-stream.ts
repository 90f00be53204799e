import { open } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import type { TestPlan } from '../store/store.js';
import { SessionRecordReader, type CheckedRecord, type SessionFileFormat } from './parse-session-file.js';

/**
 * Session files read as streams, so their size never matters to memory: the file is read a
 * chunk at a time and only the record straddling two chunks is kept between them.
 */

/**
 * Bytes read per step. Below V8's large-object size (128 KiB), so each chunk's text dies young
 * instead of waiting for a full collection (1 MiB chunks cost ~40 MB more peak memory).
 */
const CHUNK_BYTES = 64 * 1024;

/** Tells how far reading has got, in bytes of the file. */
export type OnBytesRead = (bytesRead: number) => void;

/**
 * The text of `path`, decoded as UTF-8 chunk by chunk (a character split between chunks is
 * kept whole). One buffer is read into again and again: no garbage but the text itself.
 */
export async function* fileText(path: string, onBytesRead?: OnBytesRead): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  const file = await open(path, 'r');
  try {
    let total = 0;
    for (;;) {
      const { bytesRead } = await file.read(buffer, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      yield decoder.write(buffer.subarray(0, bytesRead));
      onBytesRead?.(total);
    }
  } finally {
    await file.close();
  }
  const rest = decoder.end();
  if (rest) yield rest;
}

/**
 * Calls `onRecord` for every record of the file, in file order, yielding after each chunk's
 * records (where a caller may hand on what it gathered; the last records come just before the
 * end); stops reading once the rest cannot matter.
 */
export async function* readSessionRecords(
  path: string,
  format: SessionFileFormat,
  onRecord: (record: CheckedRecord) => void,
  onBytesRead?: OnBytesRead,
  plan: TestPlan | null = null,
): AsyncGenerator<void> {
  const reader = new SessionRecordReader(format, onRecord, plan);
  for await (const text of fileText(path, onBytesRead)) {
    reader.write(text);
    if (reader.done) break;
    yield;
  }
  reader.end();
}

/** Reads every record of the file, in file order. */
export async function forEachSessionRecord(
  path: string,
  format: SessionFileFormat,
  onRecord: (record: CheckedRecord) => void,
  onBytesRead?: OnBytesRead,
  plan: TestPlan | null = null,
): Promise<void> {
  for await (const _chunk of readSessionRecords(path, format, onRecord, onBytesRead, plan)) {
    // Each chunk's records have gone to onRecord.
  }
}
