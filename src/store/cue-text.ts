import type { TranscriptCue } from './webvtt.js';

/** A stretch of a transcript as a person reads it: who speaks (when the file says), and what, as plain text. */
export interface PlainCue {
  startMs: number;
  endMs: number;
  speaker: string | null;
  text: string;
}

/** WebVTT's character references (and the common HTML ones a transcript may carry). */
const NAMED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', nbsp: '\u00a0', lrm: '\u200e', rlm: '\u200f', quot: '"', apos: "'" };

const decode = (text: string): string =>
  !text.includes('&') ? text : text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,6});/gi, (whole, ref: string) => {
    if (ref[0] !== '#') return NAMED[ref.toLowerCase()] ?? whole;
    const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : Number(ref.slice(1));
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });

/** `<v Name>`, `<v.loud Name>`: a voice span, and its speaker. */
const VOICE = /^<v(?:\.[^\s>]*)?(?:\s+([^>]*))?>$/;

type PlainPart = Readonly<{ speaker: string | null; text: string }>;

/**
 * The parts of recently read short cue texts: the transcripts of one test repeat sentences
 * (each task read out, the same few remarks; every generated one), and reading them again was
 * a fifth of importing a transcript. Bounded: emptied when full.
 */
const recentParts = new Map<string, readonly PlainPart[]>();
const RECENT_MAX = 4096;
const RECENT_TEXT_MAX = 200;

/**
 * A cue's text as a person reads it: one plain cue per speaker of its voice spans (`<v Ann>…</v>`,
 * several in one cue are kept apart), other markup (`<b>`, `<c.x>`, timestamps) dropped,
 * character references decoded, lines joined. A cue with no text is kept, empty, so every cue
 * keeps its place in the list.
 */
export function plainCues(cue: TranscriptCue): PlainCue[] {
  let parts = oneSpanParts(cue.text) ?? recentParts.get(cue.text);
  if (!parts) {
    parts = plainParts(cue.text);
    if (cue.text.length <= RECENT_TEXT_MAX) {
      if (recentParts.size >= RECENT_MAX) recentParts.clear();
      recentParts.set(cue.text, parts);
    }
  }
  return parts.map((part) => ({ startMs: cue.startMs, endMs: cue.endMs, speaker: part.speaker, text: part.text }));
}

/** Whitespace that plainParts would change: any but a single space between words. */
const UNEVEN_SPACE = /[^\S ]|\s\s|^\s|\s$/;

/**
 * What plainParts returns, for the shape most cues have (plain text, or one voice span around
 * it, closed at the end or not; no other markup, no character reference); null for any other.
 * No splitting, no copy of text that needs no change: over a transcript's distinct sentences
 * (nothing for the cache to find) plainParts was most of building the search entries.
 */
function oneSpanParts(cueText: string): PlainPart[] | null {
  if (cueText.includes('&')) return null;
  let speaker: string | null = null;
  let body = cueText;
  if (cueText.startsWith('<')) {
    const end = cueText.indexOf('>');
    const voice = end < 0 || cueText.lastIndexOf('<', end) !== 0 ? null : VOICE.exec(cueText.slice(0, end + 1));
    if (!voice) return null;
    speaker = voice[1]?.trim() || null;
    body = cueText.endsWith('</v>') ? cueText.slice(end + 1, -4) : cueText.slice(end + 1);
  }
  if (body.includes('<')) return null;
  const text = UNEVEN_SPACE.test(body) ? body.replace(/\s+/g, ' ').trim() : body;
  return [text === '' ? { speaker: null, text } : { speaker, text }];
}

/** What plainCues returns for a text, without the times: one pass over the text. */
function plainParts(cueText: string): PlainPart[] {
  const parts: { speaker: string | null; text: string }[] = [];
  let speaker: string | null = null;
  let pending = '';
  const flush = () => {
    const text = decode(pending).replace(/\s+/g, ' ').trim();
    pending = '';
    if (!text) return;
    const last = parts[parts.length - 1];
    if (last && last.speaker === speaker) last.text = `${last.text} ${text}`;
    else parts.push({ speaker, text });
  };
  for (const token of cueText.split(/(<[^<>]*>)/)) {
    if (!token.startsWith('<') || !token.endsWith('>')) {
      pending += token;
      continue;
    }
    const voice = VOICE.exec(token);
    if (voice || token === '</v>') {
      flush();
      speaker = voice ? decode(voice[1] ?? '').trim() || null : null;
    }
  }
  flush();
  if (parts.length === 0) parts.push({ speaker: null, text: '' });
  return parts;
}
