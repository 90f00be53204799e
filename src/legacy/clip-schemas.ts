import { Type, type Static } from '@sinclair/typebox';
import { Timestamp } from '../results/schemas.js';

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
    id: Type.String({ description: 'The reel\'s id (the v2 API\'s reelId).' }),
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
export const ReelTokenParams = Type.Object({ highlightReelToken: Type.String({ pattern: '^[0-9a-f]{20}$', description: 'The highlight reel\'s token.' }) });
export type ReelTokenParams = Static<typeof ReelTokenParams>;
