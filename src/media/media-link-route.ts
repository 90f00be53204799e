import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { EXTENSION } from '../docs/extension.js';
import { PUBLIC_SECURITY } from '../docs/security-schemes.js';
import { TAG } from '../docs/tags.js';
import { apiErrors } from '../errors.js';
import { responseHeader } from '../http/response-headers.js';
import { problemResponse } from '../results/responses.js';
import { ACCEPT_RANGES_HEADER, answerRange, rangeResponses } from './ranged-reply.js';
import { MediaLinkParams, MediaLinkQuery } from './schemas.js';
import { MEDIA_LINK_PATH, type MediaLinkSigner } from './storage/media-links.js';
import { contentDisposition, type MediaStorage } from './storage/media-storage.js';
import type { Clock } from '../clock.js';

/** What a signed link can serve (the content types media keys are stored under). */
const MEDIA_TYPES = ['video/mp4', 'video/quicktime', 'video/webm', 'video/x-matroska', 'video/x-msvideo', 'image/jpeg', 'image/png', 'image/webp', 'application/octet-stream'];
const Bytes = Type.String({ format: 'binary', description: 'The bytes of the object (or of the range asked for).' });
const bytesContent = Object.fromEntries(MEDIA_TYPES.map((type) => [type, { schema: Bytes }]));

const MEDIA_HEADERS = {
  ...ACCEPT_RANGES_HEADER,
  'Content-Length': responseHeader(Type.Integer({ minimum: 0 }), { required: true }),
  ETag: responseHeader(Type.String({ description: 'A strong validator for If-Range.' }), { required: true }),
  'Cache-Control': responseHeader(Type.String({ description: 'private, max-age=<seconds until the link expires>' }), { required: true }),
};

/** A strong validator: an object's key names its content (keys carry the content hash). */
const etagOf = (key: string, size: number) => `"${createHash('sha256').update(`${key}\n${size}`).digest('base64url').slice(0, 27)}"`;

/**
 * GET /media/<collection>/<owner>/<file>: serves a media object to whoever holds a link signed
 * by this server (see MediaLinkSigner), with single byte ranges, so a browser's <video> can seek. A link
 * tampered with, expired, or for another object gets one 403; no token is involved.
 */
export function registerMediaLinkRoute(app: FastifyInstance, deps: { storage: MediaStorage; links: MediaLinkSigner; clock: Clock }): void {
  const route = { params: MediaLinkParams, querystring: MediaLinkQuery };
  const serve = async (request: FastifyRequest<{ Params: MediaLinkParams; Querystring: MediaLinkQuery }>, reply: FastifyReply) => {
    const { collection, owner, file } = request.params;
    const key = `${collection}/${owner}/${file}`;
    const check = deps.links.check(key, request.query);
    if (!check.ok) throw apiErrors.mediaLinkRefused(`media link refused: ${check.reason}`);
    const object = await deps.storage.stat(key);
    if (!object) throw apiErrors.mediaGone(`media object ${key} is gone`);

    const etag = etagOf(key, object.size);
    const secondsLeft = Math.max(0, Math.floor((Number(request.query.expires) * 1000 - deps.clock.now()) / 1000));
    reply
      .header('etag', etag)
      .header('cache-control', `private, max-age=${secondsLeft}`)
      .header('x-content-type-options', 'nosniff')
      .type(object.contentType);
    if (check.downloadName !== undefined) reply.header('content-disposition', contentDisposition(check.downloadName));

    // RFC 9110 §13.1.5: a range is only honoured for the representation the client already has.
    const range = answerRange(request, reply, object.size, etag);
    // HEAD: the same headers, and no file opened.
    if (request.method === 'HEAD') return reply.send();
    return reply.send(await deps.storage.getStream(key, range));
  };

  // Fastify's own HEAD route would read the whole object to throw it away.
  app.head(`${MEDIA_LINK_PATH}/:collection/:owner/:file`, { schema: { ...route, hide: true } }, serve);
  app.get<{ Params: MediaLinkParams; Querystring: MediaLinkQuery }>(
    `${MEDIA_LINK_PATH}/:collection/:owner/:file`,
    {
      exposeHeadRoute: false,
      schema: {
        summary: 'Download media through a signed link',
        description:
          'Where the links handed out by the API point when media is stored on the filesystem (MEDIA_URL=file:...). ' +
          'The link is the credential: it opens one object until it expires. Single byte ranges are served (206); ' +
          'several ranges get the whole object (200).',
        tags: [TAG.videoData],
        operationId: 'downloadSignedMedia',
        ...EXTENSION,
        security: PUBLIC_SECURITY,
        ...route,
        response: {
          200: { description: 'The whole object.', headers: MEDIA_HEADERS, content: bytesContent },
          ...rangeResponses({ description: 'The range asked for.', headers: MEDIA_HEADERS, content: bytesContent }, { title: 'RangeNotSatisfiableProblem' }),
          403: problemResponse(403, ['link-refused'], 'The link was altered, has expired, or is not a link of this server.', {}, { title: 'LinkRefusedProblem' }),
          404: problemResponse(404, ['not-found'], 'The link is valid but its object no longer exists (the video was replaced).', {}, { title: 'MediaGoneProblem' }),
        },
      },
    },
    serve,
  );
}
