import { parseText } from 'media-captions';

/** One stretch of speech of a transcript, for people to read. */
export interface TranscriptCue {
  startMs: number;
  endMs: number;
  text: string;
}

/**
 * The cues of a stored transcript (checked as WebVTT when it was imported), in order, their
 * times in whole milliseconds. Markup such as `<v Speaker>` is kept as written.
 */
export async function transcriptCues(vtt: string): Promise<TranscriptCue[]> {
  const { cues } = await parseText(vtt, { type: 'vtt' });
  return cues.map((c) => ({ startMs: Math.round(c.startTime * 1000), endMs: Math.round(c.endTime * 1000), text: c.text }));
}
