import { describe, expect, it } from 'vitest';
import { BadTranscriptError, checkWebVtt, MAX_TRANSCRIPT_BYTES, parseWebVtt } from './webvtt.js';

const bytes = (text: string) => new TextEncoder().encode(text);

function refusal(text: string | Uint8Array): BadTranscriptError {
  try {
    checkWebVtt(typeof text === 'string' ? bytes(text) : text);
  } catch (error) {
    expect(error).toBeInstanceOf(BadTranscriptError);
    return error as BadTranscriptError;
  }
  throw new Error('accepted');
}

const cue = (from: string, to: string, text: string) => `${from} --> ${to}\n${text}`;

describe('checkWebVtt', () => {
  it('accepts the real document example, identifiers, notes, styles, settings and CRLF', () => {
    const example = 'WEBVTT\n\n00:00:00.000 --> 00:00:02.000\nHello, World!\n\n00:00:02.000 --> 00:00:04.000\nThis is a VTT example';
    expect(checkWebVtt(bytes(example))).toEqual({ text: example, cues: 2 });
    const rich = [
      'WEBVTT - session 1',
      'Kind: captions',
      '',
      'NOTE speaker labels follow the <v> tag',
      '',
      'STYLE',
      '::cue { color: white }',
      '',
      'intro',
      '00:01.000 --> 00:02.500 align:start',
      '<v Participant>I would click here.</v>',
      'Second line.',
      '',
      '01:00:00.000 --> 01:00:01.000',
      'An hour in.',
      '',
    ].join('\r\n');
    expect(checkWebVtt(bytes(rich)).cues).toBe(2);
    expect(checkWebVtt(bytes('WEBVTT\n')).cues).toBe(0);
  });

  it('drops a byte-order mark', () => {
    expect(checkWebVtt(bytes('\uFEFFWEBVTT\n\n00:00.000 --> 00:01.000\nHi\n')).text.startsWith('WEBVTT')).toBe(true);
  });

  it('refuses what is not WebVTT, naming the line', () => {
    expect(refusal('').message).toBe('line 1: missing WEBVTT file header');
    expect(refusal('WEBVTTX\n').line).toBe(1);
    expect(refusal('1\n00:00:00,000 --> 00:00:02,000\nan SRT file\n').line).toBe(1);
    expect(refusal('WEBVTT\n\n00:00:00.000 --> 00:0x:02.000\nHi\n').message).toBe('line 3: cue end timestamp `00:0x:02.000` is invalid');
    expect(refusal('WEBVTT\n\n00:00:00.000 --> 00:00:02.000 align:bogus\nHi\n').message).toBe('line 3: cue setting `align:bogus` is invalid');
  });

  it('refuses what a reader would silently drop: backwards cues, blocks that are not cues, a cue swallowed by a missing blank line', () => {
    const backwards = refusal('WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nok\n\n00:00:05.000 --> 00:00:02.000\nback\n');
    expect(backwards.message).toBe('line 6: the cue ends (00:00:02.000) before it starts (00:00:05.000)');
    expect(refusal('WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nok\n\nsome words\nwith no timing\n').message).toMatch(/^line 6: a block that is not a cue/);
    expect(refusal('WEBVTT\n\n00:01.000 --> 00:02.000\nok\n00:02.000 --> 00:03.000\nswallowed\n').message).toMatch(/^line 5: cue text cannot hold "-->"/);
    expect(refusal('WEBVTT\n00:01.000 --> 00:02.000\nno blank line after the header\n').message).toMatch(/^line 2: a cue in the header/);
    expect(refusal('WEBVTT\n\nNOTE a comment\n00:01.000 --> 00:02.000\nhidden\n').message).toMatch(/^line 4: a NOTE block cannot hold "-->"/);
  });

  it.each([
    ['milliseconds in two digits', '00:00.00 --> 00:01.000', 'cue start timestamp `00:00.00` is invalid'],
    ['minutes beyond 59', '00:60:00.000 --> 01:00:00.000', 'cue start timestamp `00:60:00.000` is invalid'],
    ['no space around the arrow', '00:00.000-->00:01.000', 'a cue timing line is "start --> end", with a space or tab on each side of the arrow'],
    ['an equal start and end', '00:01.000 --> 00:01.000', 'the cue ends (00:01.000) before it starts (00:01.000)'],
    ['an unknown setting', '00:00.000 --> 00:01.000 colour:red', 'unknown cue setting `colour:red` (expected vertical, line, position, size, align, region)'],
    ['a setting twice', '00:00.000 --> 00:01.000 align:start align:end', 'cue setting `align` is given twice'],
    ['a percentage over 100', '00:00.000 --> 00:01.000 size:101%', 'cue setting `size:101%` is invalid'],
    ['a setting without a value', '00:00.000 --> 00:01.000 line', 'cue setting `line` is invalid'],
    ['a setting with "="', '00:00.000 --> 00:01.000 align=start', 'unknown cue setting `align=start` (expected vertical, line, position, size, align, region)'],
  ])('refuses a timing line with %s', (_name, timing, message) => {
    expect(refusal(`WEBVTT\n\n${timing}\nHi\n`).message).toBe(`line 3: ${message}`);
  });

  it('accepts every cue setting in its valid forms, and one-digit hours as players read them', () => {
    const settings = ['vertical:rl', 'line:-2', 'line:50%,end', 'position:10.5%,line-left', 'size:80%', 'align:right', 'region:r1'];
    for (const setting of settings) expect(checkWebVtt(bytes(`WEBVTT\n\n00:00.000 --> 00:01.000 ${setting}\nHi\n`)).cues).toBe(1);
    expect(parseWebVtt('WEBVTT\n\n1:00:00.000 --> 1:00:01.000\tline:0 align:start\nHi\n')).toEqual([{ startMs: 3_600_000, endMs: 3_601_000, text: 'Hi' }]);
  });

  it('refuses bytes that are not UTF-8, NUL characters and oversized files', () => {
    expect(refusal(new Uint8Array([0x57, 0x45, 0x42, 0x56, 0x54, 0x54, 0x0a, 0xff])).message).toMatch(/not UTF-8/);
    expect(refusal('WEBVTT\n\n00:00.000 --> 00:01.000\nH\0i\n').message).toBe('line 4: contains a NUL character');
    expect(refusal(new Uint8Array(MAX_TRANSCRIPT_BYTES + 1)).message).toMatch(/larger than 8 MiB/);
  });
});

describe('parseWebVtt', () => {
  it('gives each cue its times in milliseconds and its lines, markup as written, in file order', () => {
    const text = ['WEBVTT', '', 'id-1', cue('00:00:01.250', '00:00:03.000', '<v Participant>I would click here.</v>\nSecond line.'), '', cue('00:00.500', '00:01.000', 'Earlier, listed later.'), ''].join('\r\n');
    expect(parseWebVtt(text)).toEqual([
      { startMs: 1250, endMs: 3000, text: '<v Participant>I would click here.</v>\nSecond line.' },
      { startMs: 500, endMs: 1000, text: 'Earlier, listed later.' },
    ]);
    expect(parseWebVtt('WEBVTT\r\r00:00.000 --> 00:01.000\r\r')).toEqual([{ startMs: 0, endMs: 1000, text: '' }]);
  });

  it('reads a transcript of the largest size accepted, every cue of it', () => {
    const count = Math.floor(MAX_TRANSCRIPT_BYTES / 40);
    const parts = ['WEBVTT', ''];
    for (let i = 0; i < count; i++) parts.push(`${stamp(i * 1000)} --> ${stamp(i * 1000 + 900)}`, `w${i}`, '');
    const cues = parseWebVtt(parts.join('\n'));
    expect(cues).toHaveLength(count);
    expect(cues.at(-1)).toEqual({ startMs: (count - 1) * 1000, endMs: (count - 1) * 1000 + 900, text: `w${count - 1}` });
  });
});

function stamp(ms: number): string {
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}.${pad(ms % 1000, 3)}`;
}
