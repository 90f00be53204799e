import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AccessReads } from '../access/access-cache.js';
import { EXTENSION } from '../docs/extension.js';
import { API_SECURITY } from '../docs/security-schemes.js';
import { TAG } from '../docs/tags.js';
import { apiErrors } from '../errors.js';
import { apiResponses } from '../results/responses.js';
import { Uuid } from '../results/schemas.js';
import type { TranscriptRepository } from '../store/transcripts.js';

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

/**
 * GET /api/v2/sessionResults/{sessionId}/transcript (and the earlier path without /api): a
 * session's transcript as WebVTT. Visibility is the list's: the session's test must be in a
 * workspace where the caller is a member, checked on every request; whatever is missing or
 * hidden gets the same 404, so a foreign session's existence, or its transcript's, does not
 * leak. The transcript is one primary-key read, never cached: nothing to keep fresh.
 */
export function registerTranscriptRoutes(scope: FastifyInstance, deps: { reads: AccessReads; transcripts: Pick<TranscriptRepository, 'findTranscript'> }): void {
  for (const prefix of ['/api/v2', '/v2']) {
    const real = prefix === '/api/v2';
    scope.get<{ Params: TranscriptParams }>(
      `${prefix}/sessionResults/:sessionId/transcript`,
      {
        schema: {
          summary: `A session's transcript (WebVTT)${real ? '' : ' (earlier path, an extension)'}`,
          description:
            'The transcript of a session of a test in a workspace where the caller is a team member, as a WebVTT file ' +
            '(save it with the .vtt extension). Sessions of every status may have one.' +
            (real ? '' : ' The same operation as GET /api/v2/sessionResults/{sessionId}/transcript, served without the /api prefix.'),
          tags: [TAG.video],
          // The real contract's operationId, so generated clients name the method alike.
          operationId: real ? 'SessionResultsController_getTranscriptVtt' : 'SessionResultsController_getTranscriptVttEarlierPath',
          ...(real ? {} : EXTENSION),
          security: API_SECURITY,
          params: TranscriptParams,
          response: apiResponses({ description: 'The transcript, in WebVTT format.', schema: WebVtt, mediaType: 'text/vtt' }, { notFound: NOT_FOUND }),
        },
      },
      async (request, reply) => {
        const sessionId = request.params.sessionId.toLowerCase();
        const transcript = await deps.transcripts.findTranscript(sessionId);
        const visible = transcript ? await deps.reads.findVisibleTest(transcript.testId, request.caller.email) : null;
        if (!transcript || !visible) {
          throw apiErrors.transcriptNotFound(`session ${sessionId}: no transcript, or outside the workspaces of ${request.caller.clientId}`);
        }
        return reply.type(WEBVTT_CONTENT_TYPE).send(transcript.vtt);
      },
    );
  }
}
