import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseRange } from '../../media/byte-ranges.js';
import { MediaLinkParams } from '../../media/schemas.js';
import { loadMediaLinkKey, MediaLinkSigner } from '../../media/storage/media-links.js';
import type { MediaStorage } from '../../media/storage/media-storage.js';
import type { OperationDeps } from '../../operations/deps.js';
import { AdminProblem } from '../problems.js';
import { Problem } from '../schemas.js';

/** Where the admin listener serves media through signed links: same origin as the console, so its CSP (media-src 'self') allows it. */
const ADMIN_MEDIA_BASE = '/admin';

/** What a signed media link carries besides the object's key (see media-links.ts). */
const MediaLinkQuery = Type.Object({ expires: Type.Optional(Type.String({ maxLength: 20 })), signature: Type.Optional(Type.String({ maxLength: 100 })) });
type MediaLinkQuery = Static<typeof MediaLinkQuery>;

/** Signs links to this listener's media route with the deployment's media link key. */
export async function adminMediaLinks(deps: Pick<OperationDeps, 'store' | 'clock'>): Promise<MediaLinkSigner> {
  return new MediaLinkSigner(await loadMediaLinkKey(deps.store.settings), ADMIN_MEDIA_BASE, deps.clock);
}

/**
 * GET /admin/media/<collection>/<owner>/<file>: the object a link from `video-link` names, to
 * whoever holds the link until it expires, with single byte ranges so the player can seek.
 * Registered outside the authenticated scope: the signature is the credential.
 */
export function registerAdminMediaRoute(app: FastifyInstance, deps: { storage: MediaStorage; links: MediaLinkSigner }): void {
  const serve = async (request: FastifyRequest<{ Params: MediaLinkParams; Querystring: MediaLinkQuery }>, reply: FastifyReply) => {
    const { collection, owner, file } = request.params;
    const key = `${collection}/${owner}/${file}`;
    const check = deps.links.check(key, request.query);
    if (!check.ok) throw new AdminProblem(403, 'link-refused', 'This media link is invalid or has expired; open the session again for a new one.');
    const object = await deps.storage.stat(key);
    if (!object) throw new AdminProblem(404, 'not-found', 'This file no longer exists (the video was replaced); open the session again.');
    reply.header('accept-ranges', 'bytes').header('cache-control', 'private, no-store').type(object.contentType);
    const asked = parseRange(request.headers.range, object.size);
    if (asked.kind === 'unsatisfiable') {
      reply.header('content-range', `bytes */${object.size}`);
      throw new AdminProblem(416, 'range-not-satisfiable', `The range lies outside the ${object.size} bytes of the file.`);
    }
    const range = asked.kind === 'range' ? asked.range : undefined;
    if (range) reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${object.size}`);
    reply.header('content-length', range ? range.end - range.start + 1 : object.size);
    if (request.method === 'HEAD') return reply.send();
    return reply.send(await deps.storage.getStream(key, range));
  };
  const route = { params: MediaLinkParams, querystring: MediaLinkQuery };
  const bytes = { description: 'The bytes of the object, or of the range asked for.', content: Object.fromEntries(['video/mp4', 'image/jpeg'].map((type) => [type, { schema: { type: 'string', format: 'binary' } }])) };
  app.head(`${ADMIN_MEDIA_BASE}/media/:collection/:owner/:file`, { schema: { ...route, hide: true } }, serve);
  app.get(
    `${ADMIN_MEDIA_BASE}/media/:collection/:owner/:file`,
    {
      exposeHeadRoute: false,
      schema: {
        ...route,
        tags: ['Sessions'],
        summary: 'Media through a link from video-link (no session or token: the link is the credential)',
        description: 'Single byte ranges are served (206), so a player can seek. An altered or expired link: 403.',
        security: [],
        response: { 200: bytes, 206: bytes, ...Object.fromEntries([400, 403, 404, 416, 503].map((status) => [status, { ...Problem, description: 'A refusal (problem details).' }])) },
      },
    },
    serve,
  );
}
