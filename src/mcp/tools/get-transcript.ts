import { Type } from '@sinclair/typebox';
import { plainCues } from '../../store/cue-text.js';
import { defineTool, Id, nextCursor, pageWindow } from '../tool.js';
import { clockTime } from './clock-time.js';

const Cue = Type.Object({
  startMs: Type.Integer({ description: 'When the cue starts in the session video (ms).' }),
  endMs: Type.Integer({ description: 'When it ends (ms).' }),
  speaker: Type.Union([Type.String(), Type.Null()], { description: "Who speaks, from the cue's voice tag; null when the file does not say." }),
  text: Type.String({ description: 'What is said, as plain text (markup removed).' }),
});

/** A session's transcript, cue by cue, as plain text: what GET …/transcript serves as WebVTT. */
export const getTranscript = defineTool({
  name: 'get_transcript',
  title: 'Get a transcript',
  description:
    "A session's transcript as cues with their times in the video and speakers, in plain text (no WebVTT markup), in file order, a page at a time. The whole WebVTT file is GET /api/v2/sessionResults/{sessionId}/transcript.",
  input: Type.Object({
    sessionId: Id('The session (from list_sessions or search).'),
    cursor: Type.Optional(Type.String({ maxLength: 200, description: 'The `nextCursor` of the previous page.' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, description: 'At most this many cues of the file (default 200).' })),
  }),
  output: Type.Object({ sessionId: Type.String(), cueCount: Type.Integer({ description: 'Cues in the whole file.' }), cues: Type.Array(Cue), nextCursor: Type.Optional(Type.String()) }),
  async run(caller, input, deps) {
    const window = pageWindow('get_transcript', input.sessionId.toLowerCase(), { ...input, limit: input.limit ?? 200 });
    const range = await deps.access.transcriptCues(caller, input.sessionId, window.offset, window.limit);
    return {
      sessionId: input.sessionId.toLowerCase(),
      cueCount: range.cueCount,
      cues: range.cues.flatMap(plainCues),
      ...nextCursor('get_transcript', input.sessionId.toLowerCase(), window, range.cueCount),
    };
  },
  render: (out) => out.cues.map((c) => `[${clockTime(c.startMs)}] ${c.speaker ? `${c.speaker}: ` : ''}${c.text}`).join('\n') || '(no cues)',
});
