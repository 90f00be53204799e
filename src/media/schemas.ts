import { Type, type Static } from '@sinclair/typebox';
import { EXTENSION } from '../docs/extension.js';
import { Uuid } from '../results/schemas.js';

export const SessionVideoParams = Type.Object({
  sessionId: Uuid('A session of a test in a workspace where the caller is a member.'),
});
export type SessionVideoParams = Static<typeof SessionVideoParams>;

/** The real VideoDownloadResponseDto. */
export const VideoDownloadResponse = Type.Object(
  {
    videoUrl: Type.String({
      format: 'uri',
      description:
        'Where to GET the video, without other credentials, until expiresAt: an S3 presigned URL, or a link to this ' +
        'server signed for this video alone (Range requests supported). Valid for one hour.',
    }),
    sessionId: Type.String({ format: 'uuid', description: 'The session the video belongs to.' }),
    expiresAt: Type.String({ format: 'date-time', description: 'When videoUrl stops working (UTC, ISO 8601); ask again for a new one.' }),
  },
  { title: 'VideoDownloadResponseDto' },
);
export type VideoDownloadResponse = Static<typeof VideoDownloadResponse>;

/** What a signed media link carries besides the object's key (see storage/media-links.ts). */
export const MediaLinkQuery = Type.Object(
  {
    expires: Type.Optional(Type.String({ description: 'When the link expires, in seconds since the epoch (signed).' })),
    name: Type.Optional(Type.String({ description: 'The file name offered for a download (signed).' })),
    signature: Type.Optional(Type.String({ description: 'HMAC-SHA256 of the key, expiry and name, base64url.' })),
  },
  EXTENSION,
);
export type MediaLinkQuery = Static<typeof MediaLinkQuery>;

/** The three segments of a media key (see MEDIA_LINK_PATH). */
export const MediaLinkParams = Type.Object({
  collection: Type.String({ description: 'What kind of media, e.g. videos.', maxLength: 128 }),
  owner: Type.String({ description: 'Whose media, e.g. a sessionId.', maxLength: 128 }),
  file: Type.String({ description: 'The file, named by its content hash.', maxLength: 128 }),
});
export type MediaLinkParams = Static<typeof MediaLinkParams>;
