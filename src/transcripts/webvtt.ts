import { parseText, parseVTTTimestamp, ParseError } from 'media-captions';

/** The largest transcript accepted: hours of speech are a few hundred KiB. */
export const MAX_TRANSCRIPT_BYTES = 8 * 1024 * 1024;

/** Why a transcript is not WebVTT, and where (1-based line; 0 for the file as a whole). */
export class BadTranscriptError extends Error {
  override name = 'BadTranscriptError';
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(line > 0 ? `line ${line}: ${reason}` : reason);
  }
}

const TIMING = /^(\S+)[ \t]+-->[ \t]+(\S+)/;
/** Blocks of a WebVTT file that are not cues (W3C WebVTT §4.1). */
const NON_CUE_BLOCK = /^(NOTE|STYLE|REGION)([ \t]|$)/;

/**
 * Decodes and checks a transcript file as WebVTT: UTF-8, the WEBVTT header, and every cue
 * well formed. `media-captions` parses in strict mode (header, timestamps, cue settings); a
 * few rules it lets pass silently are checked here, so a file is refused rather than stored
 * with cues missing: a cue must end after it starts, and every block must be a cue (with a
 * timing line), a NOTE, a STYLE or a REGION. Returns the text (without a byte-order mark)
 * and its number of cues.
 */
export async function checkWebVtt(bytes: Uint8Array): Promise<{ text: string; cues: number }> {
  if (bytes.length > MAX_TRANSCRIPT_BYTES) {
    throw new BadTranscriptError(0, `larger than ${MAX_TRANSCRIPT_BYTES / 1024 / 1024} MiB (${bytes.length} bytes)`);
  }
  let text: string;
  try {
    // fatal: invalid UTF-8 is refused, not replaced by U+FFFD.
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new BadTranscriptError(0, 'not UTF-8 text (WebVTT is always UTF-8)');
  }
  if (text.includes('\0')) throw new BadTranscriptError(lineOf(text, text.indexOf('\0')), 'contains a NUL character');
  let parsed: Awaited<ReturnType<typeof parseText>>;
  try {
    parsed = await parseText(text, { strict: true, type: 'vtt' });
  } catch (err) {
    if (err instanceof ParseError) throw new BadTranscriptError(err.line, err.message.replace(/ on line \d+/, ''));
    throw err;
  }
  const timings = checkBlocks(text);
  if (parsed.cues.length !== timings) {
    // Not expected once the checks above passed: never store a transcript with cues lost.
    throw new BadTranscriptError(0, `${timings} cue timing lines but only ${parsed.cues.length} readable cues`);
  }
  return { text, cues: timings };
}

/** Checks each block after the header; returns how many cues (timing lines) there are. */
function checkBlocks(text: string): number {
  const lines = text.split(/\r\n|\r|\n/);
  let cues = 0;
  let i = 0;
  // The header block: WEBVTT and any header lines, up to the first blank line.
  while (i < lines.length && lines[i] !== '') i++;
  while (i < lines.length) {
    if (lines[i] === '') {
      i++;
      continue;
    }
    const start = i;
    while (i < lines.length && lines[i] !== '') i++;
    const block = lines.slice(start, i);
    if (NON_CUE_BLOCK.test(block[0]!)) continue;
    // A cue: an optional identifier line, then its timing line.
    const at = TIMING.test(block[0]!) ? 0 : block.length > 1 && TIMING.test(block[1]!) ? 1 : -1;
    if (at < 0) throw new BadTranscriptError(start + 1, 'a block that is not a cue: a cue needs a timing line "start --> end"');
    const [, from, to] = TIMING.exec(block[at]!)!;
    const startTime = parseVTTTimestamp(from!);
    const endTime = parseVTTTimestamp(to!);
    if (startTime !== null && endTime !== null && endTime <= startTime) {
      throw new BadTranscriptError(start + at + 1, `the cue ends (${to}) before it starts (${from})`);
    }
    cues++;
  }
  return cues;
}

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split(/\r\n|\r|\n/).length;
}
