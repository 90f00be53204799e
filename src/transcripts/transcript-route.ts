import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { ResourceAccess } from '../access/resource-access.js';
import { API_SECURITY } from '../docs/security-schemes.js';
import { TAG } from '../docs/tags.js';
import { documentedOn, V2_PREFIXES } from '../results/earlier-path.js';
import { ACCEPT_RANGES_HEADER, answerRange, rangeResponses } from '../media/ranged-reply.js';
import { API_HEADERS, apiResponses } from '../results/responses.js';
import { Uuid } from '../results/schemas.js';

export const TranscriptParams = Type.Object({
  sessionId: Uuid('A session of a test in a workspace where the caller is a team member.'),
});
export type TranscriptParams = Static<typeof TranscriptParams>;

/** The media type of a transcript (W3C WebVTT §7.1); WebVTT is always UTF-8. */
export const WEBVTT_CONTENT_TYPE = 'text/vtt; charset=utf-8';

const WebVtt = Type.String({
  format: 'WebVTT',
  description: 'The transcript as a WebVTT file: the WEBVTT header, then one cue per stretch of speech.',
  examples: ['WEBVTT\n\n00:00:00.000 --> 00:00:02.000\nHello, World!\n\n00:00:02.000 --> 00:00:04.000\nThis is a VTT example\n'],
});

const NOT_FOUND =
  'Transcript not found: the session has none, does not exist, or belongs to a test in no workspace where the caller is a ' +
  'member (the same answer for all three).';

const ranged = { headers: { ...API_HEADERS, ...ACCEPT_RANGES_HEADER }, content: { 'text/vtt': { schema: WebVtt } } };
const RESPONSES = {
  ...apiResponses({ description: 'The transcript, in WebVTT format.', schema: WebVtt, mediaType: 'text/vtt' }, { notFound: NOT_FOUND }),
  200: { description: 'The transcript, in WebVTT format.', ...ranged },
  ...rangeResponses({ description: 'The bytes of the transcript a single range asked for (RFC 9110 §14).', ...ranged }),
};

/**
 * GET /api/v2/sessionResults/{sessionId}/transcript (and the earlier path without /api): a
 * session's transcript as WebVTT, if the caller may see the session (ResourceAccess.transcript:
 * one 404 for whatever is missing or hidden), with `Accept-Ranges: bytes` as the real one
 * declares: a single byte range gets 206. The transcript is one primary-key read, never
 * cached: nothing to keep fresh.
 */
export function registerTranscriptRoute(scope: FastifyInstance, deps: { access: ResourceAccess }): void {
  for (const prefix of V2_PREFIXES) {
    scope.get<{ Params: TranscriptParams }>(
      `${prefix}/sessionResults/:sessionId/transcript`,
      {
        schema: {
          ...documentedOn(prefix, {
            path: '/sessionResults/:sessionId/transcript',
            summary: "A session's transcript (WebVTT)",
            description:
              'The transcript of a session of a test in a workspace where the caller is a team member, as a WebVTT file ' +
              '(save it with the .vtt extension). Sessions of every status may have one. A single byte range (`Range: ' +
              'bytes=0-99`) gets 206 with Content-Range; a range past the end 416; several ranges the whole file.',
            operationId: 'SessionResultsController_getTranscriptVtt',
          }),
          tags: [TAG.videoData],
          security: API_SECURITY,
          params: TranscriptParams,
          response: RESPONSES,
        },
      },
      async (request, reply) => {
        const transcript = await deps.access.transcript(request.caller, request.params.sessionId);
        const bytes = Buffer.from(transcript.vtt, 'utf8');
        reply.type(WEBVTT_CONTENT_TYPE);
        const range = answerRange(request, reply, bytes.length);
        return reply.send(range ? bytes.subarray(range.start, range.end + 1) : bytes);
      },
    );
  }
}
