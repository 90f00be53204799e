import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from './json-depth.js';
import {
  MAX_LINE_CHARS,
  parseIsoTime,
  parseSessionFile,
  readCsv,
  SessionRecordReader,
  sessionFileFormat,
  type CheckedRecord,
} from './parse-session-file.js';

const S1 = '0b0c4a3e-1111-4c1a-9a55-2a6f4c0e7d10';
const S2 = '0b0c4a3e-2222-4c1a-9a55-2a6f4c0e7d10';
const A1 = '7d3f0a52-3f0e-4a59-9d1f-0d9b1b7d2a11';
const T1 = '2024-11-21T12:23:52.614Z';
const T1_MS = Date.UTC(2024, 10, 21, 12, 23, 52, 614);

describe('sessionFileFormat', () => {
  it('follows the extension, case-insensitively', () => {
    expect(sessionFileFormat('a/b.ndjson')).toBe('ndjson');
    expect(sessionFileFormat('b.JSONL')).toBe('ndjson');
    expect(sessionFileFormat('b.Csv')).toBe('csv');
    expect(sessionFileFormat('b.json')).toBeUndefined();
    expect(sessionFileFormat('csv')).toBeUndefined();
  });
});

describe('parseIsoTime', () => {
  it('reads UTC and offset times to epoch milliseconds', () => {
    expect(parseIsoTime(T1)).toBe(T1_MS);
    expect(parseIsoTime('2024-11-21T13:23:52.614+01:00')).toBe(T1_MS);
    expect(parseIsoTime('2024-11-21T07:53:52.614-0430')).toBe(T1_MS);
    expect(parseIsoTime('2024-11-21T12:23Z')).toBe(Date.UTC(2024, 10, 21, 12, 23));
    expect(parseIsoTime('2024-11-21T12:23:52Z')).toBe(Date.UTC(2024, 10, 21, 12, 23, 52));
    expect(parseIsoTime('2024-11-21T12:23:52.6Z')).toBe(Date.UTC(2024, 10, 21, 12, 23, 52, 600));
    expect(parseIsoTime('2024-11-21T12:23:52.614999999Z')).toBe(T1_MS);
    expect(parseIsoTime('2024-02-29T00:00:00Z')).toBe(Date.UTC(2024, 1, 29));
    expect(parseIsoTime('0050-01-01T00:00:00Z')).toBe(new Date('0050-01-01T00:00:00Z').getTime());
  });

  it.each([
    '2024-11-21T12:23:52.614', // no timezone
    '2024-11-21',
    '2024-11-21 12:23:52Z',
    '1732191832614',
    '2023-02-29T00:00:00Z',
    '2024-02-30T00:00:00Z',
    '2024-13-01T00:00:00Z',
    '2024-00-10T00:00:00Z',
    '2024-04-31T00:00:00Z',
    '2024-11-21T24:00:00Z',
    '2024-11-21T12:60:00Z',
    '2024-11-21T12:00:60Z',
    '2024-11-21T12:00:00+24:00',
    '2024-11-21T12:00:00+01:60',
    ' 2024-11-21T12:00:00Z',
  ])('refuses %j', (text) => {
    expect(parseIsoTime(text)).toBeUndefined();
  });
});

describe('readCsv (RFC 4180)', () => {
  it('handles quoted commas, doubled quotes, line breaks inside quotes and CRLF', () => {
    const text = 'a,"b,c","say ""hi"""\r\n"multi\nline",,x\r\n';
    expect(readCsv(text)).toEqual([
      { line: 1, fields: ['a', 'b,c', 'say "hi"'] },
      { line: 2, fields: ['multi\nline', '', 'x'] },
    ]);
  });

  it('numbers records by the line they start on and reports malformed ones', () => {
    const records = readCsv('a,b\n"x\ny",z\nbad"quote,1\n"closed"junk,2\nok,3\n"never closed,4\n');
    expect(records.map((r) => [r.line, r.error ?? r.fields])).toEqual([
      [1, ['a', 'b']],
      [2, ['x\ny', 'z']],
      [4, 'a field containing a quote must be enclosed in quotes'],
      [5, 'unexpected text after a closing quote (a quote inside a quoted field must be doubled)'],
      [6, ['ok', '3']],
      [7, 'a quoted field opened on line 7 is never closed'],
    ]);
  });
});

describe('parseSessionFile', () => {
  it('reads NDJSON, treating null, empty and absent optional fields alike', () => {
    const text = [
      JSON.stringify({ sessionId: S1.toUpperCase(), audienceId: A1, status: 'COMPLETE', startTime: T1, finishTime: '2024-11-21T12:30:00.000Z' }),
      '',
      JSON.stringify({ sessionId: S2, audienceId: null, status: 'IN_PROGRESS', startTime: T1, finishTime: '' }),
      '',
    ].join('\n');
    expect(parseSessionFile(text, 'ndjson')).toEqual({
      ok: true,
      sessions: [
        { sessionId: S1, audienceId: A1, status: 'COMPLETE', startTime: T1_MS, finishTime: Date.UTC(2024, 10, 21, 12, 30) },
        { sessionId: S2, audienceId: null, status: 'IN_PROGRESS', startTime: T1_MS, finishTime: null },
      ],
    });
  });

  it('reads CSV with a BOM, any column order, optional columns left out, and quoted values', () => {
    const text = `\uFEFFstatus,startTime,SessionId\r\n"COMPLETE","${T1}",${S1}\r\n`;
    expect(parseSessionFile(text, 'csv')).toEqual({
      ok: true,
      sessions: [{ sessionId: S1, audienceId: null, status: 'COMPLETE', startTime: T1_MS, finishTime: null }],
    });
  });

  it('accepts a CSV with only a header (nothing to import)', () => {
    expect(parseSessionFile('sessionId,audienceId,status,startTime,finishTime\n', 'csv')).toEqual({ ok: true, sessions: [] });
  });

  it('reports every bad NDJSON line by number, each with all of its problems', () => {
    const good = (id: string) => JSON.stringify({ sessionId: id, status: 'COMPLETE', startTime: T1 });
    const text = [
      good(S1),
      '{"sessionId": "nope", "status": "complete", "startTime": "yesterday"}',
      '{not json',
      '[1,2]',
      JSON.stringify({ sessionId: S2, status: 'COMPLETE', startTime: T1, finishTime: '2024-11-21T12:00:00Z' }),
      JSON.stringify({ sessionId: S2, status: 'COMPLETE', startTime: T1, extra: 1 }),
      good(S1),
      JSON.stringify({ audienceId: 'x' }),
    ].join('\n');
    const result = parseSessionFile(text, 'ndjson');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.errors).toEqual([
      {
        line: 2,
        message:
          'sessionId must be a UUID (got "nope"); ' +
          "status must be 1-32 uppercase letters, digits or '_', starting with a letter, e.g. COMPLETE (got \"complete\"); " +
          'startTime must be an ISO 8601 time with a timezone, e.g. 2024-11-21T12:23:52.614Z (got "yesterday")',
      },
      { line: 3, message: expect.stringMatching(/^not valid JSON \(.+\)$/) },
      { line: 4, message: 'expected a JSON object with sessionId, audienceId, status, startTime, finishTime, details' },
      { line: 5, message: 'finishTime is before startTime' },
      { line: 6, message: 'unknown field "extra" (expected sessionId, audienceId, status, startTime, finishTime, details)' },
      { line: 7, message: `sessionId ${S1} also appears on line 1` },
      {
        line: 8,
        message: 'sessionId is missing; status is missing; startTime is missing; audienceId must be a UUID (got "x")',
      },
    ]);
  });

  it('reports bad CSV rows by the line they start on', () => {
    const text = [
      'sessionId,audienceId,status,startTime,finishTime',
      `${S1},,COMPLETE,${T1},`,
      `${S2},,"COMP`,
      `LETE",${T1},`,
      `${S2},,COMPLETE,${T1}`,
      `${S1.toUpperCase()},,COMPLETE,${T1},`,
    ].join('\r\n');
    const result = parseSessionFile(text, 'csv');
    expect(!result.ok && result.errors).toEqual([
      {
        line: 3,
        message: "status must be 1-32 uppercase letters, digits or '_', starting with a letter, e.g. COMPLETE (got \"COMP\\r\\nLETE\")",
      },
      { line: 5, message: 'expected 5 fields (sessionId,audienceId,status,startTime,finishTime), found 4' },
      { line: 6, message: `sessionId ${S1} also appears on line 2` },
    ]);
  });

  it('refuses a CSV header with unknown, repeated or missing columns', () => {
    const result = parseSessionFile('\n\nsessionId,sessionid,state,startTime\n', 'csv');
    expect(!result.ok && result.errors).toEqual([
      {
        line: 3,
        message:
          'header row: column sessionId appears twice; unknown column "state"; column status is missing ' +
          '(expected columns sessionId, audienceId, status, startTime, finishTime, details)',
      },
    ]);
  });

  it('refuses an empty file', () => {
    expect(parseSessionFile('\n \n', 'ndjson')).toEqual({
      ok: false,
      errors: [{ line: 1, message: 'the file is empty (expected one JSON object per line)' }],
    });
    expect(parseSessionFile('', 'csv')).toEqual({
      ok: false,
      errors: [{ line: 1, message: 'the file is empty (expected a header row)' }],
    });
  });
});

describe('deep nesting (issue 30)', () => {
  const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
  const start = `"status":"COMPLETE","startTime":"${T1}"`;
  const tooDeep = (what: string) => `${what} nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`;
  const good = JSON.stringify({ sessionId: S1, status: 'COMPLETE', startTime: T1 });

  it('a 10 KB NDJSON line nesting 5,000 levels is a bad line, reported by its number, wherever the nesting is', () => {
    const deepLines = [
      `{"sessionId":"${S2}",${start},"details":{"participant":${nested(5000)}}}`,
      `{"sessionId":"${S2}",${start},"details":${nested(5000)}}`,
      `{"sessionId":${nested(5000)},${start}}`,
      `{"sessionId":"${S2}",${start},"extra":${nested(5000)}}`,
    ];
    for (const deep of deepLines) {
      expect(deep.length).toBeGreaterThan(10_000);
      expect(parseSessionFile(`${good}\n${deep}\n`, 'ndjson')).toEqual({ ok: false, errors: [{ line: 2, message: tooDeep('the line') }] });
    }
  });

  it('the same in a CSV record\'s details, and MAX_JSON_DEPTH levels in all are read', () => {
    const csv = (details: string) => `sessionId,status,startTime,details\n${S1},COMPLETE,${T1},"${details.replace(/"/g, '""')}"\n`;
    expect(parseSessionFile(csv(`{"participant":${nested(5000)}}`), 'csv')).toEqual({ ok: false, errors: [{ line: 2, message: tooDeep('details') }] });
    // As deep as allowed: refused for what it is, not for its depth.
    const deepest = JSON.stringify({ participant: JSON.parse(nested(MAX_JSON_DEPTH - 1)) });
    expect(parseSessionFile(csv(deepest), 'csv')).toEqual({ ok: false, errors: [{ line: 2, message: expect.not.stringContaining('levels deep') }] });
  });

  it('a line of thousands of unknown fields gets a message naming a few', () => {
    const fields = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`f${i}`, 1]));
    const result = parseSessionFile(JSON.stringify({ sessionId: S1, status: 'COMPLETE', startTime: T1, ...fields }), 'ndjson');
    expect(result).toEqual({ ok: false, errors: [{ line: 1, message: expect.stringMatching(/^unknown fields "f0", "f1", "f2" and 4997 more \(expected /) }] });
  });
});

describe('SessionRecordReader', () => {
  const read = (format: 'ndjson' | 'csv', pieces: string[]) => {
    const records: unknown[] = [];
    const reader = new SessionRecordReader(format, (record) => records.push(record));
    for (const piece of pieces) reader.write(piece);
    reader.end();
    return records;
  };

  it.each([
    ['ndjson', `\uFEFF${JSON.stringify({ sessionId: S1, status: 'COMPLETE', startTime: T1 })}\r\n\n{oops\r\n${JSON.stringify({ sessionId: S2, status: 'X', startTime: T1 })}`],
    ['csv', `\uFEFFsessionId,status,startTime\r\n${S1},COMPLETE,${T1}\r\n"${S2}","IN\nPROGRESS",${T1}\r\n${S2},COMPLETE`],
  ] as const)('reads %s the same however the text is cut', (format, text) => {
    const whole = read(format, [text]);
    expect(whole.length).toBeGreaterThan(1);
    for (let cut = 0; cut <= text.length; cut++) expect(read(format, [text.slice(0, cut), text.slice(cut)])).toEqual(whole);
  });

  it('refuses an over-long NDJSON line by its number, and reads on after it', () => {
    const long = `{"sessionId":"${'x'.repeat(MAX_LINE_CHARS)}"}`;
    const good = JSON.stringify({ sessionId: S1, status: 'COMPLETE', startTime: T1 });
    const records = read('ndjson', [good, '\n', long.slice(0, 100), long.slice(100), '\n', good]) as CheckedRecord[];
    expect(records.map((r) => [r.line, r.problems ?? r.session?.sessionId])).toEqual([
      [1, S1],
      [2, [`the line is longer than ${MAX_LINE_CHARS} characters`]],
      [3, S1],
    ]);
  });
});

describe('checking a record: the quick path for values in stored form agrees with the full reading', () => {
  // Spaces around every string value change nothing (values are trimmed), but send the record
  // down the full reading: both must find the same session, or both refuse it.
  const padded = (value: unknown) => (typeof value === 'string' ? ` ${value} ` : value);
  const field = (...choices: unknown[]) => fc.constantFrom(...choices);
  const record = fc.record(
    {
      sessionId: field(S1, S1.toUpperCase(), '', null, 'nope', 42),
      audienceId: field(A1, A1.toUpperCase(), '', null, undefined, 'x'),
      status: field('COMPLETE', 'IN_PROGRESS', 'complete', '', null, 7),
      startTime: field(T1, '2024-11-21T12:23:52Z', '2024-02-30T00:00:00.000Z', '2024-11-21T12:23:52.614+01:00', '', 'yesterday'),
      finishTime: field(T1, '2024-11-21T13:00:00.000Z', '2024-11-21T12:00:00.000Z', '', null, undefined, '2024-13-01T00:00:00Z'),
    },
    { requiredKeys: [] },
  );

  it('for NDJSON and CSV alike', () => {
    fc.assert(
      fc.property(record, (values) => {
        const outcome = (v: Record<string, unknown>) => {
          const result = parseSessionFile(JSON.stringify(v), 'ndjson');
          return result.ok ? result.sessions : 'refused';
        };
        const spaced = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, padded(v)]));
        expect(outcome(values)).toEqual(outcome(spaced));
      }),
    );
  });

  it('reads canonical UTC times exactly as the general ISO 8601 reading does', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }), (date) => {
        const iso = date.toISOString(); // 2024-11-21T12:23:52.614Z: the quick path
        expect(parseIsoTime(iso)).toBe(date.getTime());
        expect(parseIsoTime(iso.replace('T', 't'))).toBe(date.getTime()); // the general path
        expect(parseIsoTime(iso.replace(/\.\d{3}Z$/, 'Z'))).toBe(Math.floor(date.getTime() / 1000) * 1000);
      }),
    );
  });
});
