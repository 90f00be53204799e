import { EXTENSION } from '../docs/extension.js';
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Uuid } from '../results/schemas.js';

// Component names and fields are the real Results v2 document's (its "Video Data" schemas), so
// a client generated from either gets the same types.

/** What both clip operations say of who may see a session. */
export const CLIP_VISIBILITY =
  ' Visibility is the session list\'s: a session that does not exist and one in a test outside the caller\'s workspaces get the same 404.';

export const SessionClipsParams = Type.Object({
  sessionId: Uuid('The session whose video the clips were cut from.'),
});
export type SessionClipsParams = Static<typeof SessionClipsParams>;

export const ClipParams = Type.Object({
  sessionId: Uuid('The session whose video holds the clip.'),
  clipUuid: Uuid('The clip.'),
});
export type ClipParams = Static<typeof ClipParams>;

/** A string enumeration as the real document writes one (a `type` and an `enum`, not an anyOf of constants). */
const StringEnum = <T extends string>(values: readonly T[], options: { title?: string; description: string }) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });

const RegionType = StringEnum(['SCREEN', 'CAMERA'], { title: 'RegionType', description: 'A stream of the session video.' });
const PipPositionType = StringEnum(['TOP_LEFT', 'TOP_RIGHT', 'BOTTOM_LEFT', 'BOTTOM_RIGHT'], {
  title: 'PipPositionType',
  description: 'Where the picture-in-picture sits.',
});
const PipStateType = StringEnum(['OPENED', 'CLOSED'], { title: 'PipStateType', description: 'Whether the picture-in-picture shows.' });

export const ClipLayout = Type.Object(
  { mainStream: RegionType, pipPosition: PipPositionType, pipState: PipStateType },
  { title: 'ClipLayoutDto', description: 'How a player lays the clip out: the main stream, and the other one as a picture-in-picture.' },
);

export const Clip = Type.Object(
  {
    uuid: Type.String({ format: 'uuid', description: 'The clip.' }),
    name: Type.String({ description: 'The name its creator gave it.' }),
    description: Type.Optional(Type.String({ description: 'Its creator\'s note, when there is one.' })),
    timeStartMs: Type.Integer({ minimum: 0, description: 'Where it starts, in milliseconds from the start of the session video.' }),
    timeEndMs: Type.Integer({ minimum: 1, description: 'Where it ends, in milliseconds from the start of the session video.' }),
    videoUuid: Type.String({ format: 'uuid', description: 'The session video it was cut from (here, the session\'s id).' }),
    hasAudio: Type.Boolean({ description: 'Whether the video has sound.' }),
    hasCamera: Type.Boolean({ description: 'Whether the video has a camera region.' }),
    layout: Type.Optional(ClipLayout),
  },
  { title: 'ClipDto', description: 'One clip of the session video.' },
);

const Point = Type.Object(
  { x: Type.Integer({ description: 'Pixels from the left edge.' }), y: Type.Integer({ description: 'Pixels from the top edge.' }) },
  { title: 'ClipPointDto', description: 'A point of the video frame.' },
);

const Region = Type.Object(
  {
    topLeftPoint: Type.Optional(Point),
    widthPx: Type.Integer({ minimum: 1, description: 'Width in pixels.' }),
    heightPx: Type.Integer({ minimum: 1, description: 'Height in pixels.' }),
  },
  { title: 'ClipVideoRegionDto', description: 'A rectangle of the video frame.' },
);

const Regions = Type.Object(
  { screen: Type.Optional(Region), camera: Type.Optional(Region) },
  { title: 'ClipVideoRegionsDto', description: 'Where the screen and the camera (when recorded) appear in the video frame.' },
);

export const ClipsResponse = Type.Object(
  {
    studyUuid: Type.String({ format: 'uuid', description: 'The test the session belongs to.' }),
    clips: Type.Array(Clip, { description: 'The clips of the session video, in the order they start.' }),
    videoRegions: Type.Optional(Regions),
  },
  { title: 'ClipsResponseDto', description: 'The clips cut from a session video, with the video\'s regions.' },
);
export type ClipsResponse = Static<typeof ClipsResponse>;

export const ClipDetailsResponse = Type.Object(
  {
    clipUuid: Type.String({ format: 'uuid', description: 'The clip.' }),
    status: StringEnum(['GENERATING', 'GENERATED', 'ERROR'], {
      description:
        'GENERATING: being cut, ask again in a few seconds. GENERATED: ready, clipUrl downloads it. ' +
        'ERROR: cutting failed; this request started a new attempt, so ask again.',
    }),
    clipUrl: Type.Optional(
      Nullable<string>('string', {
        format: 'uri',
        description: 'A link that downloads the clip (MP4) for 15 minutes; only when GENERATED. Ask again for a fresh one.',
      }),
    ),
  },
  { title: 'ClipDetailsResponseDto', description: 'A clip\'s state and, once generated, a download link.' },
);
export type ClipDetailsResponse = Static<typeof ClipDetailsResponse>;

export const TestReelsParams = Type.Object({
  testId: Uuid('The test whose highlight reels are listed.'),
});
export type TestReelsParams = Static<typeof TestReelsParams>;

export const ReelParams = Type.Object({
  testId: Uuid('The test the highlight reel belongs to.'),
  reelId: Uuid('The highlight reel.'),
});
export type ReelParams = Static<typeof ReelParams>;

export const HighlightReel = Type.Object(
  {
    uuid: Type.String({ format: 'uuid', description: 'The highlight reel.' }),
    highlightReelToken: Type.String({
      pattern: '^[0-9a-f]{20}$',
      description: 'Extension (not in the real contract): the token the Legacy v1 operation GET /usertesting/api/v1/highlightreel/{highlightReelToken} finds the reel by.',
      ...EXTENSION,
    }),
    name: Type.String({ description: 'The name its creator gave it.' }),
    durationMs: Type.Integer({ minimum: 0, description: 'Its length: the lengths of its clips added up, in milliseconds.' }),
    lastUpdatedAtMs: Type.Integer({ description: 'When it last changed, in epoch milliseconds.' }),
    numClips: Type.Integer({ minimum: 0, description: 'How many clips it joins.' }),
    areAllClipsInReel: Type.Boolean({ description: 'Whether it holds every clip of the test.' }),
  },
  { title: 'HighlightReelDto', description: 'One highlight reel of the test.' },
);

export const HighlightReelsResponse = Type.Object(
  {
    reels: Type.Array(HighlightReel, { description: 'The test\'s highlight reels, oldest first.' }),
    studyWithClips: Type.Boolean({ description: 'Whether any session of the test has clips.' }),
  },
  { title: 'HighlightReelsResponseDto', description: 'The highlight reels of a test.' },
);
export type HighlightReelsResponse = Static<typeof HighlightReelsResponse>;

export const ReelDetailsResponse = Type.Object(
  {
    reelId: Type.String({ format: 'uuid', description: 'The highlight reel.' }),
    status: StringEnum(['GENERATING', 'GENERATED', 'ERROR'], {
      description:
        'GENERATING: being made, ask again in a few seconds. GENERATED: ready, reelUrl downloads it. ' +
        'ERROR: making it failed; this request started a new attempt, so ask again.',
    }),
    reelUrl: Type.Optional(
      Nullable<string>('string', {
        format: 'uri',
        description: 'A link that downloads the reel (MP4) for 15 minutes; only when GENERATED. Ask again for a fresh one.',
      }),
    ),
  },
  { title: 'ReelDetailsResponseDto', description: 'A highlight reel\'s state and, once generated, a download link.' },
);
export type ReelDetailsResponse = Static<typeof ReelDetailsResponse>;
