import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CsvRecordSplitter, MAX_CSV_RECORD_CHARS, readCsv, type CsvRecord } from './csv-records.js';

/** The records of `text` fed to a splitter in the given pieces. */
function readInPieces(pieces: string[]): CsvRecord[] {
  const records: CsvRecord[] = [];
  const splitter = new CsvRecordSplitter((record) => records.push(record));
  for (const piece of pieces) splitter.write(piece);
  splitter.end();
  return records;
}

const TRICKY = [
  'a,"b,c","say ""hi"""\r\n"multi\nline",,x\r\n',
  'a,b\n"x\ny",z\nbad"quote,1\n"closed"junk,2\nok,3\n"never closed,4\n',
  'one\rtwo\r\nthree\n\n"q"\r',
  '"",""""\n,\n"a""\r\nb",c',
];

describe('CsvRecordSplitter', () => {
  it.each(TRICKY)('reads %j the same however it is cut', (text) => {
    const whole = readCsv(text);
    for (let cut = 0; cut <= text.length; cut++) {
      expect(readInPieces([text.slice(0, cut), text.slice(cut)])).toEqual(whole);
    }
    expect(readInPieces([...text])).toEqual(whole);
  });

  it('reads any text the same whole or in pieces', () => {
    const csvish = fc.string({ unit: fc.constantFrom('a', 'b', ',', '"', '\r', '\n', ' ') , maxLength: 40 });
    fc.assert(
      fc.property(csvish, fc.array(fc.nat(40), { maxLength: 5 }), (text, cuts) => {
        const at = [...new Set(cuts.map((c) => Math.min(c, text.length)))].sort((a, b) => a - b);
        const pieces = [...at, text.length].map((end, i) => text.slice(i === 0 ? 0 : at[i - 1], end));
        expect(readInPieces(pieces)).toEqual(readCsv(text));
      }),
    );
  });

  it('refuses a record that never ends and reads no further', () => {
    const runaway = `"${'x'.repeat(MAX_CSV_RECORD_CHARS)}`;
    const records = readInPieces(['a,b\n', runaway.slice(0, 1000), runaway.slice(1000), '\nc,d\n']);
    expect(records).toEqual([
      { line: 1, fields: ['a', 'b'] },
      {
        line: 2,
        fields: [],
        error: `the record is longer than ${MAX_CSV_RECORD_CHARS} characters (is a closing quote missing?); the rest of the file was not read`,
      },
    ]);
  });
});
