import { describe, expect, it } from 'vitest';
import { rejectionOf } from '../../test/helpers/rejection.js';
import { BadTranscriptError, checkWebVtt, MAX_TRANSCRIPT_BYTES } from './webvtt.js';

const bytes = (text: string) => new TextEncoder().encode(text);

const refusal = (text: string | Uint8Array) => rejectionOf(checkWebVtt(typeof text === 'string' ? bytes(text) : text), BadTranscriptError);

describe('checkWebVtt', () => {
  it('accepts the real document example, identifiers, notes, styles, settings and CRLF', async () => {
    const example = 'WEBVTT\n\n00:00:00.000 --> 00:00:02.000\nHello, World!\n\n00:00:02.000 --> 00:00:04.000\nThis is a VTT example';
    expect(await checkWebVtt(bytes(example))).toEqual({ text: example, cues: 2 });
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
    expect((await checkWebVtt(bytes(rich))).cues).toBe(2);
    expect((await checkWebVtt(bytes('WEBVTT\n'))).cues).toBe(0);
  });

  it('drops a byte-order mark', async () => {
    expect((await checkWebVtt(bytes('\uFEFFWEBVTT\n\n00:00.000 --> 00:01.000\nHi\n'))).text.startsWith('WEBVTT')).toBe(true);
  });

  it('refuses what is not WebVTT, naming the line', async () => {
    expect((await refusal('')).message).toBe('line 1: missing WEBVTT file header');
    expect((await refusal('1\n00:00:00,000 --> 00:00:02,000\nan SRT file\n')).line).toBe(1);
    const badTime = await refusal('WEBVTT\n\n00:00:00.000 --> 00:0x:02.000\nHi\n');
    expect(badTime.message).toBe('line 3: cue end timestamp `00:0x:02.000` is invalid');
    expect((await refusal('WEBVTT\n\n00:00:00.000 --> 00:00:02.000 align:bogus\nHi\n')).line).toBe(3);
  });

  it('refuses what the parser would silently drop: backwards cues and blocks that are not cues', async () => {
    const backwards = await refusal('WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nok\n\n00:00:05.000 --> 00:00:02.000\nback\n');
    expect(backwards.message).toBe('line 6: the cue ends (00:00:02.000) before it starts (00:00:05.000)');
    const prose = await refusal('WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nok\n\nsome words\nwith no timing\n');
    expect(prose.message).toMatch(/^line 6: a block that is not a cue/);
  });

  it('refuses bytes that are not UTF-8, NUL characters and oversized files', async () => {
    expect((await refusal(new Uint8Array([0x57, 0x45, 0x42, 0x56, 0x54, 0x54, 0x0a, 0xff]))).message).toMatch(/not UTF-8/);
    expect((await refusal('WEBVTT\n\n00:00.000 --> 00:01.000\nH\0i\n')).message).toBe('line 4: contains a NUL character');
    expect((await refusal(new Uint8Array(MAX_TRANSCRIPT_BYTES + 1))).message).toMatch(/larger than 8 MiB/);
  });
});
