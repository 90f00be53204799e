import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { apiErrors } from '../errors.js';
import { responseHeader } from '../http/response-headers.js';
import { problemResponse } from '../results/responses.js';
import { parseRange } from './byte-ranges.js';
import type { ByteRange } from './storage/media-storage.js';

/**
 * Answers the `Range` of a GET for a representation of `size` bytes (RFC 9110 §14): always
 * `Accept-Ranges: bytes`; one satisfiable range gets 206 with `Content-Range`; a range past the
 * end throws 416 with `Content-Range: bytes *\/size`; anything else is served whole. `If-Range`
 * (§13.1.5) keeps the range only when it names `etag`: without a validator the whole is sent.
 * Returns the range to send (undefined for the whole) and sets Content-Length for it.
 */
export function answerRange(request: FastifyRequest, reply: FastifyReply, size: number, etag?: string): ByteRange | undefined {
  reply.header('accept-ranges', 'bytes');
  const ifRange = request.headers['if-range'];
  const asked = ifRange === undefined || (etag !== undefined && ifRange === etag) ? parseRange(request.headers.range, size) : { kind: 'none' as const };
  if (asked.kind === 'unsatisfiable') {
    reply.header('content-range', `bytes */${size}`);
    throw apiErrors.rangeNotSatisfiable(size);
  }
  const range = asked.kind === 'range' ? asked.range : undefined;
  if (range) reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${size}`);
  reply.header('content-length', range ? range.end - range.start + 1 : size);
  return range;
}

/** `Accept-Ranges`, as every answer of a ranged GET carries it. */
export const ACCEPT_RANGES_HEADER = {
  'Accept-Ranges': responseHeader(Type.Literal('bytes', { description: 'Byte ranges may be asked for (RFC 9110 §14.3).' }), { required: true }),
};

/**
 * The 206 and 416 answers of a ranged GET, documented once: `partial` is the 206 response
 * without its Content-Range; `outsideApi` as for problemResponse (a route outside the API guard).
 */
export function rangeResponses(partial: { description: string; headers?: Record<string, unknown>; content: Record<string, unknown> }, outsideApi?: { title: string }) {
  return {
    206: {
      ...partial,
      headers: { ...partial.headers, 'Content-Range': responseHeader(Type.String({ pattern: '^bytes \\d+-\\d+/\\d+$' }), { required: true }) },
    },
    416: problemResponse(
      416,
      ['range-not-satisfiable'],
      'The range starts past the end of the representation.',
      { 'Content-Range': responseHeader(Type.String({ pattern: '^bytes \\*/\\d+$' }), { required: true }) },
      outsideApi,
    ),
  };
}
