import { describe, expect, it } from 'vitest';
import { plainCues } from './cue-text.js';

const cue = (text: string) => ({ startMs: 500, endMs: 2000, text });

describe('plainCues: a transcript cue as a person reads it', () => {
  it('names the speaker of a voice span and keeps only the words', () => {
    expect(plainCues(cue('<v Participant>I am looking for the basket.</v>'))).toEqual([{ startMs: 500, endMs: 2000, speaker: 'Participant', text: 'I am looking for the basket.' }]);
  });

  it('reads a voice with classes and a name of several words; drops other markup and timestamps; decodes references', () => {
    expect(plainCues(cue('<v.loud.first Moderator Jane>Take <b>your</b> time &amp; <c.red>look</c> <00:00:01.500>around &lt;3&#33;</v>'))).toEqual([
      { startMs: 500, endMs: 2000, speaker: 'Moderator Jane', text: 'Take your time & look around <3!' },
    ]);
  });

  it('keeps two speakers of one cue apart, joins lines of one, and a voice left open runs to the end', () => {
    expect(plainCues(cue('<v Ann>Hello,\nthere.</v>\n<v Bob>Hi!\n<v Bob>Again'))).toEqual([
      { startMs: 500, endMs: 2000, speaker: 'Ann', text: 'Hello, there.' },
      { startMs: 500, endMs: 2000, speaker: 'Bob', text: 'Hi! Again' },
    ]);
  });

  it('a cue without a voice has no speaker; an empty one keeps its place', () => {
    expect(plainCues(cue('- plain words'))).toEqual([{ startMs: 500, endMs: 2000, speaker: null, text: '- plain words' }]);
    expect(plainCues(cue('<i></i>'))).toEqual([{ startMs: 500, endMs: 2000, speaker: null, text: '' }]);
  });

  it('reads a long cue in one pass', () => {
    const long = `<v A>${'word '.repeat(200_000)}</v>`;
    expect(plainCues(cue(long))[0]!.text.length).toBe(200_000 * 5 - 1);
  });

  it('the same text read again (remembered) gives each cue its own times and objects of its own', () => {
    const first = plainCues({ startMs: 0, endMs: 1000, text: '<v Ann>Same &amp; again</v>' });
    const second = plainCues({ startMs: 5000, endMs: 6000, text: '<v Ann>Same &amp; again</v>' });
    expect(second).toEqual([{ startMs: 5000, endMs: 6000, speaker: 'Ann', text: 'Same & again' }]);
    first[0]!.text = 'changed';
    expect(plainCues({ startMs: 0, endMs: 1000, text: '<v Ann>Same &amp; again</v>' })[0]!.text).toBe('Same & again');
  });

  it('reads the common shapes (plain text, one voice span) as the full reading does, whatever the spacing or stray markup', () => {
    // Markup at the end changes nothing a person reads, and sends any text down the full reading.
    const pieces = ['<v Ann>', '<v.loud  Bob Lee >', '<v>', '</v>', '<b>', '<', '>', '</v', ' ', '  ', '\n', '\t', '\u00a0', 'word', 'x.', '&amp;', '&'];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
    for (let i = 0; i < 5_000; i++) {
      const text = Array.from({ length: 1 + (next() % 6) }, () => pieces[next() % pieces.length]).join('');
      expect(plainCues(cue(text)), JSON.stringify(text)).toEqual(plainCues(cue(`${text}<b></b>`)));
    }
    expect(plainCues(cue('<v Ann>  Two\n lines  </v>'))).toEqual([{ startMs: 500, endMs: 2000, speaker: 'Ann', text: 'Two lines' }]);
    expect(plainCues(cue('<v Ann> </v>'))).toEqual([{ startMs: 500, endMs: 2000, speaker: null, text: '' }]);
  });
});
