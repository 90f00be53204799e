import { Type, type Static } from '@sinclair/typebox';
import { Timestamp } from '../results/schemas.js';
import { CLIP_SENTIMENTS, type ClipSentiment } from '../store/clips.js';

// Component names and fields are the real legacy Integrations v1 document's.

export const LegacyClip = Type.Object(
  {
    typeName: Type.Literal('Clip', { description: 'Always Clip.' }),
    createdAt: Timestamp('When the clip was made (UTC, ISO 8601).'),
    duration: Type.Integer({ minimum: 0, description: 'Its length in whole seconds.' }),
    embeddableUrl: Type.String({ format: 'uri', description: 'A player page for an iframe, behind a signed link valid for one hour.' }),
    isImportant: Type.Boolean({ description: 'Always false here (no priority is kept).' }),
    note: Type.String({ description: 'Its creator\'s note (empty when none).' }),
    noteTags: Type.Array(Type.String(), { description: 'Always empty here (no tags are kept).' }),
    securePoster: Type.Optional(Type.String({ format: 'uri', description: 'Its poster frame, behind a signed link valid for one hour; once the clip is cut.' })),
    sentimentTag: Type.Optional(
      Type.Unsafe<ClipSentiment>({
        type: 'string',
        enum: [...CLIP_SENTIMENTS],
        description: 'What its creator felt it shows (`clips create --sentiment`); left out when not given.',
      }),
    ),
    study: Type.Object({ title: Type.String({ description: 'The title of its test.' }) }, { description: 'The test of its session.' }),
  },
  { title: 'Clip', description: 'A clip, with a link to play it embedded.' },
);
export type LegacyClip = Static<typeof LegacyClip>;

const ReelClipNode = Type.Object(
  {
    duration: Type.Number({ minimum: 0, description: 'Its length in seconds.' }),
    id: Type.String({ description: 'The clip\'s id.' }),
    securePosterFullUrl: Type.Optional(Type.String({ format: 'uri', description: 'Its poster frame (signed link, one hour); once the clip is cut.' })),
    url: Type.String({ format: 'uri', description: 'A player page of the clip (signed link, one hour).' }),
  },
  { title: 'HighlightreelClipNode', description: 'One clip of the reel.' },
);

export const LegacyReel = Type.Object(
  {
    clips: Type.Object(
      { nodes: Type.Array(ReelClipNode, { description: 'Its clips in playing order.' }), totalCount: Type.Integer({ minimum: 0 }) },
      { description: 'The clips of the reel.' },
    ),
    createdAt: Timestamp('When the reel was made (UTC, ISO 8601).'),
    duration: Type.Number({ minimum: 0, description: 'Its length in seconds.' }),
    editUrlPath: Type.String({
      pattern: '^/',
      description: "Where the reel is edited: the admin console's page of its test, a path on the admin listener (ADMIN_URL).",
      examples: ['/#/tests/9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f?reel=2d1b7c0e-8f4a-4e4b-9c1d-6a5e3f2b1c0d'],
    }),
    id: Type.String({
      pattern: '^[1-9][0-9]*$',
      description: "The reel's numeric id (not a UUID, as the real one): derived from its uuid (the v2 reelId), stable everywhere.",
    }),
    shareUrl: Type.String({ format: 'uri', description: 'A player page of the whole reel for an iframe (signed link, one hour).' }),
    title: Type.String({ description: 'Its name.' }),
    token: Type.String({ description: 'The token this operation finds it by.' }),
    updatedAt: Timestamp('When it last changed (UTC, ISO 8601).'),
  },
  { title: 'Highlightreel', description: 'A highlight reel, with links to play it and each of its clips embedded.' },
);
export type LegacyReel = Static<typeof LegacyReel>;

export const ClipUuidParams = Type.Object({ clipUuid: Type.String({ format: 'uuid', description: 'The clip.' }) });
export type ClipUuidParams = Static<typeof ClipUuidParams>;
/**
 * Any token-sized text: a token that is not one (a reel's uuid, a mistyped token) is answered
 * 404 like an unknown one, not as a malformed parameter.
 */
export const ReelTokenParams = Type.Object({
  highlightReelToken: Type.String({
    minLength: 1,
    maxLength: 100,
    description: "The highlight reel's token (20 hex characters), as `reels list`, the admin console and the v2 reel's `highlightReelToken` show it.",
  }),
});
export type ReelTokenParams = Static<typeof ReelTokenParams>;
