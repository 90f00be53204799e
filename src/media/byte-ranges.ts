import type { ByteRange } from './storage/media-storage.js';

/**
 * What a `Range` header asks of a representation of `size` bytes (RFC 9110 §14):
 * `none` (serve it whole: no header, another unit, or several ranges, which a server may
 * ignore), one satisfiable `range`, or `unsatisfiable` (answer 416).
 */
export type RangeRequest = { kind: 'none' } | { kind: 'range'; range: ByteRange } | { kind: 'unsatisfiable' };

const SINGLE = /^bytes=(\d*)-(\d*)$/i;

export function parseRange(header: string | undefined, size: number): RangeRequest {
  if (header === undefined) return { kind: 'none' };
  // Several ranges (multipart/byteranges) or an unknown unit: the whole file is a valid answer.
  const m = header.includes(',') ? null : SINGLE.exec(header);
  if (!m) return { kind: 'none' };
  const [, first, last] = m;
  if (first === '' && last === '') return { kind: 'none' };
  if (first === '') {
    // bytes=-N: the last N bytes.
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'range', range: { start: Math.max(0, size - suffix), end: size - 1 } };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== '' && Number(last) < start) return { kind: 'none' }; // invalid: ignored (§14.1.1)
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'range', range: { start, end } };
}
