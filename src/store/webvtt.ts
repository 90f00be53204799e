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

/** One stretch of speech of a transcript, for people to read. */
export interface TranscriptCue {
  startMs: number;
  endMs: number;
  /** The cue's lines, joined by "\n"; markup such as `<v Speaker>` is kept as written. */
  text: string;
}

/**
 * Decodes and checks a transcript file as WebVTT (see parseWebVtt): UTF-8, no NUL, at most
 * MAX_TRANSCRIPT_BYTES. Returns the text (without a byte-order mark) and its number of cues.
 */
export function checkWebVtt(bytes: Uint8Array): { text: string; cues: number } {
  if (bytes.length > MAX_TRANSCRIPT_BYTES) {
    throw new BadTranscriptError(0, `larger than ${MAX_TRANSCRIPT_BYTES / 1024 / 1024} MiB (${bytes.length} bytes)`);
  }
  let text: string;
  try {
    // fatal: invalid UTF-8 is refused, not replaced by U+FFFD. The byte-order mark is dropped.
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new BadTranscriptError(0, 'not UTF-8 text (WebVTT is always UTF-8)');
  }
  const nul = text.indexOf('\0');
  if (nul >= 0) throw new BadTranscriptError(text.slice(0, nul).split(/\r\n|\r|\n/).length, 'contains a NUL character');
  return { text, cues: parseWebVtt(text).length };
}

/**
 * The cues of a WebVTT file, in file order, read strictly by the file syntax of W3C WebVTT
 * §4 so that nothing is stored with cues silently lost: the WEBVTT header (and any header
 * lines up to the first blank line), then blocks separated by blank lines, each a NOTE, STYLE
 * or REGION block or a cue: an optional identifier, a timing line `start --> end` with valid
 * cue settings (§4.4), the end after the start, and text lines none of which holds "-->" (a
 * missing blank line would otherwise swallow the next cue). Throws BadTranscriptError naming
 * the first bad line.
 *
 * One pass over the text, each line looked at a bounded number of times: linear in the size
 * of the file (the library used before re-queued every line and took minutes on 250,000
 * cues). Hours may have one digit, as every player reads them; milliseconds need three.
 */
export function parseWebVtt(text: string): TranscriptCue[] {
  const lines = new LineReader(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  const signature = lines.next();
  if (signature === undefined || !(signature === 'WEBVTT' || /^WEBVTT[ \t]/.test(signature))) {
    throw new BadTranscriptError(1, 'missing WEBVTT file header');
  }
  for (let line = lines.next(); line !== undefined && line !== ''; line = lines.next()) {
    if (line.includes('-->')) throw new BadTranscriptError(lines.number, 'a cue in the header: a blank line must follow the WEBVTT header lines');
  }
  const cues: TranscriptCue[] = [];
  for (let line = lines.next(); line !== undefined; line = lines.next()) {
    if (line === '') continue;
    const kind = mayStartNonCueBlock(line.charCodeAt(0)) ? NON_CUE_BLOCK.exec(line)?.[1] : undefined;
    if (kind !== undefined) {
      skipBlock(lines, kind);
      continue;
    }
    const start = lines.number;
    let timing = line;
    if (!timing.includes('-->')) {
      // An identifier: the timing line comes next.
      const next = lines.next();
      if (next === undefined || !next.includes('-->')) {
        throw new BadTranscriptError(start, 'a block that is not a cue: a cue needs a timing line "start --> end"');
      }
      timing = next;
    }
    const { startMs, endMs } = parseTiming(timing, lines.number);
    let cueText = '';
    for (let payload = lines.next(); payload !== undefined && payload !== ''; payload = lines.next()) {
      if (payload.includes('-->')) {
        throw new BadTranscriptError(lines.number, 'cue text cannot hold "-->" (is the blank line before the next cue missing?)');
      }
      cueText = cueText === '' ? payload : `${cueText}\n${payload}`;
    }
    cues.push({ startMs, endMs, text: cueText });
  }
  return cues;
}

/** Blocks of a WebVTT file that are not cues (§4.1): their keyword, alone or followed by a space or tab. */
const NON_CUE_BLOCK = /^(NOTE|STYLE|REGION)(?:[ \t]|$)/;
/** N, S or R: most blocks are cues, told apart by their first character alone. */
const mayStartNonCueBlock = (c: number): boolean => c === 78 || c === 83 || c === 82;

/** Reads past a NOTE, STYLE or REGION block; none may hold "-->" (§4.1, §4.2), which would hide a cue. */
function skipBlock(lines: LineReader, kind: string): void {
  for (let line = lines.next(); line !== undefined && line !== ''; line = lines.next()) {
    if (line.includes('-->')) throw new BadTranscriptError(lines.number, `a ${kind} block cannot hold "-->" (is the blank line before the cue missing?)`);
  }
}

/** The lines of a text, split at CRLF, LF or CR, numbered from 1, without copying the text. */
class LineReader {
  private at = 0;
  /** The number of the line `next` returned last. */
  number = 0;

  constructor(private readonly text: string) {}

  next(): string | undefined {
    const { text } = this;
    const from = this.at;
    if (from > text.length) return undefined;
    let end = from;
    for (; end < text.length; end++) {
      const c = text.charCodeAt(end);
      if (c === 10 || c === 13) break;
    }
    this.at = end + (text.charCodeAt(end) === 13 && text.charCodeAt(end + 1) === 10 ? 2 : 1);
    this.number++;
    return text.slice(from, end);
  }
}

const isBlank = (c: number): boolean => c === 32 || c === 9;

/**
 * A timing line (§4.1): `start`, spaces or tabs, `-->`, spaces or tabs, `end`, then optional
 * settings after a space or tab. Read by position rather than by regular expressions: it is
 * the one line every cue has.
 */
function parseTiming(line: string, number: number): { startMs: number; endMs: number } {
  const arrow = line.indexOf('-->');
  let fromEnd = arrow;
  while (fromEnd > 0 && isBlank(line.charCodeAt(fromEnd - 1))) fromEnd--;
  let toStart = arrow + 3;
  while (toStart < line.length && isBlank(line.charCodeAt(toStart))) toStart++;
  let toEnd = toStart;
  while (toEnd < line.length && !isBlank(line.charCodeAt(toEnd))) toEnd++;
  if (fromEnd === arrow || toStart === arrow + 3 || fromEnd === 0 || toEnd === toStart) {
    throw new BadTranscriptError(number, 'a cue timing line is "start --> end", with a space or tab on each side of the arrow');
  }
  const startMs = timestampMs(line, 0, fromEnd);
  if (startMs === undefined) throw new BadTranscriptError(number, `cue start timestamp \`${line.slice(0, fromEnd)}\` is invalid`);
  const endMs = timestampMs(line, toStart, toEnd);
  if (endMs === undefined) throw new BadTranscriptError(number, `cue end timestamp \`${line.slice(toStart, toEnd)}\` is invalid`);
  if (endMs <= startMs) throw new BadTranscriptError(number, `the cue ends (${line.slice(toStart, toEnd)}) before it starts (${line.slice(0, fromEnd)})`);
  if (toEnd < line.length) checkCueSettings(line.slice(toEnd), number);
  return { startMs, endMs };
}

/**
 * The §4.3 timestamp in line[from, to) in milliseconds, or undefined: hours (optional, up to
 * 9 digits), then minutes and seconds 00-59 and three digits of milliseconds.
 */
function timestampMs(line: string, from: number, to: number): number | undefined {
  // mm:ss.ttt is the last 9 characters; what comes before it, if anything, is "h:".
  const tail = to - 9;
  if (tail < from || line.charCodeAt(tail + 2) !== 58 /* : */ || line.charCodeAt(tail + 5) !== 46 /* . */) return undefined;
  const minutes = digitsAt(line, tail, 2);
  const seconds = digitsAt(line, tail + 3, 2);
  const millis = digitsAt(line, tail + 6, 3);
  if (minutes > 59 || seconds > 59 || millis < 0 || minutes < 0 || seconds < 0) return undefined;
  let hours = 0;
  if (tail > from) {
    if (line.charCodeAt(tail - 1) !== 58 || tail - 1 - from > 9) return undefined;
    hours = digitsAt(line, from, tail - 1 - from);
    if (hours < 0) return undefined;
  }
  return ((hours * 60 + minutes) * 60 + seconds) * 1000 + millis;
}

/** The decimal number of `count` (at least 1) digits at line[at], or -1 if one is not a digit. */
function digitsAt(line: string, at: number, count: number): number {
  if (count < 1) return -1;
  let value = 0;
  for (let i = at; i < at + count; i++) {
    const d = line.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    value = value * 10 + d;
  }
  return value;
}

/** §4.4: a percentage, 0-100. */
const PERCENTAGE = /^(\d+(?:\.\d+)?)%$/;
const isPercentage = (value: string): boolean => {
  const p = PERCENTAGE.exec(value);
  return p !== null && Number(p[1]) <= 100;
};
/** A value and an optional alignment after a comma: `value` checks the first part. */
const withAlignment = (value: (v: string) => boolean, alignments: readonly string[]) => (text: string) => {
  const comma = text.indexOf(',');
  return comma < 0 ? value(text) : value(text.slice(0, comma)) && alignments.includes(text.slice(comma + 1));
};

/** §4.4 cue settings, each with the values it takes. */
const CUE_SETTINGS: Readonly<Record<string, (value: string) => boolean>> = {
  vertical: (v) => v === 'rl' || v === 'lr',
  line: withAlignment((v) => /^-?\d+$/.test(v) || isPercentage(v), ['start', 'center', 'end']),
  position: withAlignment(isPercentage, ['line-left', 'center', 'line-right']),
  size: isPercentage,
  align: (v) => ['start', 'center', 'end', 'left', 'right'].includes(v),
  region: (v) => v !== '',
};

/** What follows the end timestamp: settings `name:value`, each once, separated by spaces or tabs. */
function checkCueSettings(text: string, number: number): void {
  if (!/^[ \t]/.test(text)) throw new BadTranscriptError(number, `a space or tab must follow the end timestamp (got \`${text}\`)`);
  const seen = new Set<string>();
  for (const setting of text.split(/[ \t]+/)) {
    if (setting === '') continue;
    const colon = setting.indexOf(':');
    const name = colon < 0 ? setting : setting.slice(0, colon);
    const valid = Object.hasOwn(CUE_SETTINGS, name) ? CUE_SETTINGS[name]! : undefined;
    if (!valid) throw new BadTranscriptError(number, `unknown cue setting \`${setting}\` (expected ${Object.keys(CUE_SETTINGS).join(', ')})`);
    if (colon < 0 || !valid(setting.slice(colon + 1))) throw new BadTranscriptError(number, `cue setting \`${setting}\` is invalid`);
    if (seen.has(name)) throw new BadTranscriptError(number, `cue setting \`${name}\` is given twice`);
    seen.add(name);
  }
}
