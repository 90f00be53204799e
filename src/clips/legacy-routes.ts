import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AccessReads } from '../access/access-cache.js';
import { API_SECURITY } from '../docs/security-schemes.js';
import { TAG } from '../docs/tags.js';
import { apiErrors } from '../errors.js';
import { legacyResponses } from '../legacy/responses.js';
import { LEGACY_PREFIXES } from '../legacy/routes.js';
import type { OpenedMediaStorage } from '../media/storage/open-media-storage.js';
import { isoTime } from '../results/iso-time.js';
import { Timestamp } from '../results/schemas.js';
import { clipPosterKey, type Clip } from '../store/clips.js';
import type { Store } from '../store/store.js';
import { PLAYER_LINK_SECONDS, playerLink } from './player.js';

// Component names and fields are the real legacy Integrations v1 document's.

const LegacyClip = Type.Object(
  {
    typeName: Type.Literal('Clip', { description: 'Always Clip.' }),
    createdAt: Timestamp('When the clip was made (UTC, ISO 8601).'),
    duration: Type.Integer({ minimum: 0, description: 'Its length in whole seconds.' }),
    embeddableUrl: Type.String({ format: 'uri', description: 'A player page for an iframe, behind a signed link valid for one hour.' }),
    isImportant: Type.Boolean({ description: 'Always false here (no priority is kept).' }),
    note: Type.String({ description: 'Its creator\'s note (empty when none).' }),
    noteTags: Type.Array(Type.String(), { description: 'Always empty here (no tags are kept).' }),
    securePoster: Type.Optional(Type.String({ format: 'uri', description: 'Its poster frame, behind a signed link valid for one hour; once the clip is cut.' })),
    study: Type.Object({ title: Type.String({ description: 'The title of its test.' }) }, { description: 'The test of its session.' }),
  },
  { title: 'Clip', description: 'A clip, with a link to play it embedded.' },
);

const ReelClipNode = Type.Object(
  {
    duration: Type.Number({ minimum: 0, description: 'Its length in seconds.' }),
    id: Type.String({ description: 'The clip\'s id.' }),
    securePosterFullUrl: Type.Optional(Type.String({ format: 'uri', description: 'Its poster frame (signed link, one hour); once the clip is cut.' })),
    url: Type.String({ format: 'uri', description: 'A player page of the clip (signed link, one hour).' }),
  },
  { title: 'HighlightreelClipNode', description: 'One clip of the reel.' },
);

const LegacyReel = Type.Object(
  {
    clips: Type.Object(
      { nodes: Type.Array(ReelClipNode, { description: 'Its clips in playing order.' }), totalCount: Type.Integer({ minimum: 0 }) },
      { description: 'The clips of the reel.' },
    ),
    createdAt: Timestamp('When the reel was made (UTC, ISO 8601).'),
    duration: Type.Number({ minimum: 0, description: 'Its length in seconds.' }),
    id: Type.String({ description: 'The reel\'s id (the v2 API\'s reelId).' }),
    shareUrl: Type.String({ format: 'uri', description: 'A player page of the whole reel for an iframe (signed link, one hour).' }),
    title: Type.String({ description: 'Its name.' }),
    token: Type.String({ description: 'The token this operation finds it by.' }),
    updatedAt: Timestamp('When it last changed (UTC, ISO 8601).'),
  },
  { title: 'Highlightreel', description: 'A highlight reel, with links to play it and each of its clips embedded.' },
);

const ClipUuidParams = Type.Object({ clipUuid: Type.String({ format: 'uuid', description: 'The clip.' }) });
const ReelTokenParams = Type.Object({ highlightReelToken: Type.String({ pattern: '^[0-9a-f]{20}$', description: 'The highlight reel\'s token.' }) });

export interface LegacyClipDeps {
  store: Pick<Store, 'clips' | 'reels' | 'directory'>;
  reads: AccessReads;
  media: OpenedMediaStorage;
}

/**
 * The legacy v1 `clip/{clipUuid}` and `highlightreel/{highlightReelToken}`: metadata and
 * embeddable player links (see player.ts). The same visibility as the rest of the family:
 * what does not exist and what lies outside the caller's workspaces get the same 404.
 */
export function registerLegacyClipRoutes(scope: FastifyInstance, deps: LegacyClipDeps): void {
  const poster = async (clip: Clip) =>
    clip.status === 'GENERATED' ? (await deps.media.storage.signedUrl(clipPosterKey(clip.id), { expiresInSeconds: PLAYER_LINK_SECONDS })).url : undefined;

  for (const prefix of LEGACY_PREFIXES) {
    const primary = prefix !== '/v1';
    const name = (id: string) => (primary ? id : `${id}EarlierPath`);
    const earlier = primary ? '' : ' (without the /usertesting/api prefix)';
    const common = { tags: [TAG.legacy], security: API_SECURITY };

    scope.get<{ Params: Static<typeof ClipUuidParams> }>(
      `${prefix}/clip/:clipUuid`,
      {
        schema: {
          ...common,
          summary: `A clip, with an embeddable player link${earlier}`,
          operationId: name('getClip'),
          params: ClipUuidParams,
          response: legacyResponses(
            { description: 'The clip.', schema: LegacyClip },
            { notFound: 'Clip not found: no such clip, or one of a test outside the caller\'s workspaces (the same answer).' },
          ),
        },
      },
      async (request) => {
        const clipId = request.params.clipUuid.toLowerCase();
        const clip = await deps.store.clips.findClip(clipId);
        const test = clip && (await deps.reads.findVisibleTest(clip.testId, request.caller.email));
        if (!clip || !test) throw apiErrors.clipNotFound(`clip ${clipId} missing or outside the workspaces of ${request.caller.clientId}`);
        const securePoster = await poster(clip);
        return {
          typeName: 'Clip' as const,
          createdAt: isoTime(clip.createdAt),
          duration: Math.round((clip.endMs - clip.startMs) / 1000),
          embeddableUrl: playerLink(deps.media.links, 'clip', clip.id),
          isImportant: false,
          note: clip.description ?? '',
          noteTags: [],
          ...(securePoster ? { securePoster } : {}),
          study: { title: test.title },
        };
      },
    );

    scope.get<{ Params: Static<typeof ReelTokenParams> }>(
      `${prefix}/highlightreel/:highlightReelToken`,
      {
        schema: {
          ...common,
          summary: `A highlight reel, with embeddable player links${earlier}`,
          operationId: name('getHighlightReel'),
          params: ReelTokenParams,
          response: legacyResponses(
            { description: 'The highlight reel.', schema: LegacyReel },
            { notFound: 'Highlight reel not found: no such token, or a reel of a test outside the caller\'s workspaces (the same answer).' },
          ),
        },
      },
      async (request) => {
        const token = request.params.highlightReelToken;
        const reel = await deps.store.reels.findReelByToken(token);
        const test = reel && (await deps.reads.findVisibleTest(reel.testId, request.caller.email));
        if (!reel || !test) throw apiErrors.reelNotFound(`reel with token ${token.slice(0, 4)}… missing or outside the workspaces of ${request.caller.clientId}`);
        const nodes = [];
        for (const clipId of reel.clipIds) {
          const clip = await deps.store.clips.findClip(clipId);
          if (!clip) continue;
          const securePosterFullUrl = await poster(clip);
          nodes.push({
            duration: (clip.endMs - clip.startMs) / 1000,
            id: clip.id,
            ...(securePosterFullUrl ? { securePosterFullUrl } : {}),
            url: playerLink(deps.media.links, 'clip', clip.id),
          });
        }
        return {
          clips: { nodes, totalCount: nodes.length },
          createdAt: isoTime(reel.createdAt),
          duration: reel.durationMs / 1000,
          id: reel.id,
          shareUrl: playerLink(deps.media.links, 'highlightreel', reel.id),
          title: reel.name,
          token: reel.token,
          updatedAt: isoTime(reel.updatedAt),
        };
      },
    );
  }
}
