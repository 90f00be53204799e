import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { EXTENSION } from '../docs/extension.js';
import { PUBLIC_SECURITY } from '../docs/security-schemes.js';
import { TAG } from '../docs/tags.js';
import { apiErrors } from '../errors.js';
import { responseHeader } from '../http/response-headers.js';
import { MediaLinkQuery } from '../media/schemas.js';
import { MEDIA_LINK_PATH, type MediaLinkSigner } from '../media/storage/media-links.js';
import type { MediaStorage } from '../media/storage/media-storage.js';
import { problemResponse } from '../results/responses.js';
import { clipObjectKey, clipPosterKey } from '../store/clips.js';
import { reelObjectKey, reelPosterKey } from '../store/reels.js';
import type { Store } from '../store/open-store.js';

/** Where the embeddable player pages are served: `/player/clip/<clipUuid>` and `/player/highlightreel/<reelId>`. */
export const PLAYER_PATH = '/player';
export type PlayerKind = 'clip' | 'highlightreel';

/** How long an embeddable link, and the media links inside its page, work. */
export const PLAYER_LINK_SECONDS = 3600;

const PlayerParams = Type.Object({
  kind: Type.Union([Type.Literal('clip'), Type.Literal('highlightreel')], { description: 'What the page plays.' }),
  id: Type.String({ format: 'uuid', description: 'The clip\'s or the highlight reel\'s id.' }),
});

/**
 * A signed link to a player page: the media link signer's HMAC over `player/<kind>/<id>` and
 * an expiry, so the page opens for exactly that clip or reel until the link expires. The
 * link is the credential (it is meant to go into an iframe), as a media link is.
 */
export function playerLink(links: MediaLinkSigner, kind: PlayerKind, id: string): string {
  const key = `player/${kind}/${id}`;
  return links.sign(key, { expiresInSeconds: PLAYER_LINK_SECONDS }).url.replace(`${MEDIA_LINK_PATH}/${key}`, `${PLAYER_PATH}/${kind}/${id}`);
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

// The page's only style, allowed by its hash: no inline style or script of anyone else's runs.
const STYLE = 'html,body{margin:0;height:100%;background:#000}video{display:block;width:100%;height:100%;object-fit:contain}p{color:#eee;font:16px sans-serif;padding:1em}';
const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

/** The page: a plain HTML5 video with its poster, or a line saying it is still being made. */
function playerPage(title: string, media: { video: string; poster: string } | null): { html: string; csp: string } {
  const origins = media ? [...new Set([new URL(media.video).origin, new URL(media.poster).origin])].join(' ') : "'none'";
  const body = media
    ? `<video controls playsinline preload="metadata" poster="${escapeHtml(media.poster)}" src="${escapeHtml(media.video)}"></video>`
    : '<p>This video is still being prepared. Reload the page in a few seconds.</p>';
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
  const csp = `default-src 'none'; media-src ${origins}; img-src ${origins}; style-src ${STYLE_HASH}; base-uri 'none'; form-action 'none'`;
  return { html, csp };
}

/**
 * GET /player/<kind>/<id>: the embeddable player of a clip or highlight reel behind a signed
 * link (what the legacy v1 `embeddableUrl` and `shareUrl` point at). A strict Content
 * Security Policy: no script at all, media and poster only from where the media links point.
 */
export function registerPlayerRoute(
  app: FastifyInstance,
  deps: { store: Pick<Store, 'clips' | 'reels'>; storage: MediaStorage; links: MediaLinkSigner },
): void {
  app.get<{ Params: { kind: PlayerKind; id: string }; Querystring: MediaLinkQuery }>(
    `${PLAYER_PATH}/:kind/:id`,
    {
      schema: {
        summary: 'Play a clip or highlight reel (embeddable page behind a signed link)',
        description:
          'A plain HTML5 video page with its poster, for an iframe: the page the legacy v1 clip `embeddableUrl` and ' +
          'highlight reel `shareUrl` point at. The link is the credential, for one hour.',
        tags: [TAG.videoData],
        operationId: 'playEmbeddedMedia',
        ...EXTENSION,
        security: PUBLIC_SECURITY,
        params: PlayerParams,
        querystring: MediaLinkQuery,
        response: {
          200: {
            description: 'The player page.',
            headers: {
              'Content-Security-Policy': responseHeader(Type.String({ description: "No script; media and images only from the media links' origin." }), { required: true }),
            },
            content: { 'text/html': { schema: Type.String() } },
          },
          403: problemResponse(403, ['link-refused'], 'The link was altered, has expired, or is not a link of this server.', {}, { title: 'LinkRefusedProblem' }),
          404: problemResponse(404, ['not-found'], 'The link is valid but its clip or reel no longer exists.', {}, { title: 'PlayerGoneProblem' }),
        },
      },
    },
    async (request, reply) => {
      const { kind, id } = request.params;
      const check = deps.links.check(`player/${kind}/${id}`, request.query);
      if (!check.ok) throw apiErrors.mediaLinkRefused(`player link refused: ${check.reason}`);
      const item = kind === 'clip' ? await deps.store.clips.findClip(id) : await deps.store.reels.findReel(id);
      if (!item) throw apiErrors.videoNotFound(`${kind} ${id} of a valid player link is gone`);
      const [videoKey, posterKey] = kind === 'clip' ? [clipObjectKey(id), clipPosterKey(id)] : [reelObjectKey(id), reelPosterKey(id)];
      const sign = async (key: string) => (await deps.storage.signedUrl(key, { expiresInSeconds: PLAYER_LINK_SECONDS })).url;
      const media = item.status === 'GENERATED' ? { video: await sign(videoKey), poster: await sign(posterKey) } : null;
      const page = playerPage(item.name, media);
      return reply
        .header('content-security-policy', page.csp)
        .header('x-content-type-options', 'nosniff')
        .header('referrer-policy', 'no-referrer')
        .header('cache-control', 'private, no-store')
        .type('text/html; charset=utf-8')
        .send(page.html);
    },
  );
}
