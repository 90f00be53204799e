import { describe, expect, it } from 'vitest';
import type { SessionResult } from '@results-api/client';
import { parseSessionFile, readCsv } from '../imports/parse-session-file.js';
import { csvField, csvRecord, sessionEncoder } from './session-export-format.js';

const session: SessionResult = {
  sessionId: '0b0c4a3e-1111-4c1a-9a55-2a6f4c0e7d10',
  audienceId: null,
  status: 'COMPLETE',
  startTime: '2024-11-21T12:23:52.614Z',
  finishTime: null,
};

describe('CSV per RFC 4180', () => {
  it('leaves plain fields alone and writes null as an empty field', () => {
    expect(csvField('COMPLETE')).toBe('COMPLETE');
    expect(csvField('')).toBe('');
    expect(csvField(null)).toBe('');
  });

  it('quotes fields holding commas, quotes or line breaks, doubling the quotes', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('line 1\nline 2')).toBe('"line 1\nline 2"');
    expect(csvField('line 1\r\nline 2')).toBe('"line 1\r\nline 2"');
    expect(csvField('"')).toBe('""""');
  });

  it('ends every record with CRLF, and a CSV reader gets the same values back', () => {
    const values = ['a,b', 'say "hi"', 'line 1\nline 2', null, 'plain'];
    const text = csvRecord(values) + csvRecord(['x', 'y', 'z', 'w', 'v']);
    expect(text).toBe('"a,b","say ""hi""","line 1\nline 2",,plain\r\nx,y,z,w,v\r\n');
    expect(readCsv(text).map((r) => r.fields)).toEqual([
      ['a,b', 'say "hi"', 'line 1\nline 2', '', 'plain'],
      ['x', 'y', 'z', 'w', 'v'],
    ]);
  });

  it('writes the header sessionId,audienceId,status,startTime,finishTime and one record per session', () => {
    const csv = sessionEncoder('csv');
    expect(csv.header).toBe('sessionId,audienceId,status,startTime,finishTime\r\n');
    expect(csv.encode(session)).toBe('0b0c4a3e-1111-4c1a-9a55-2a6f4c0e7d10,,COMPLETE,2024-11-21T12:23:52.614Z,\r\n');
    expect(csv.encode({ ...session, status: 'ODD, "QUOTED"\nSTATUS' })).toBe(
      '0b0c4a3e-1111-4c1a-9a55-2a6f4c0e7d10,,"ODD, ""QUOTED""\nSTATUS",2024-11-21T12:23:52.614Z,\r\n',
    );
  });
});

describe('NDJSON', () => {
  it('writes one JSON object a line, fields in a fixed order', () => {
    const reordered = { finishTime: null, startTime: session.startTime, status: 'COMPLETE', audienceId: null, sessionId: session.sessionId };
    expect(sessionEncoder('ndjson').encode(reordered)).toBe(
      '{"sessionId":"0b0c4a3e-1111-4c1a-9a55-2a6f4c0e7d10","audienceId":null,"status":"COMPLETE","startTime":"2024-11-21T12:23:52.614Z","finishTime":null}\n',
    );
    expect(sessionEncoder('ndjson').header).toBe('');
  });
});

describe('an export reads back with sessions import', () => {
  const sessions: SessionResult[] = [
    session,
    { sessionId: '1b0c4a3e-1111-4c1a-9a55-2a6f4c0e7d10', audienceId: '7d3f0a52-3f0e-4a59-9d1f-0d9b1b7d2a11', status: 'IN_PROGRESS', startTime: '2024-11-20T08:00:00.000Z', finishTime: '2024-11-20T08:30:00.001Z' },
  ];
  const asImported = sessions.map((s) => ({
    sessionId: s.sessionId,
    audienceId: s.audienceId,
    status: s.status,
    startTime: Date.parse(s.startTime),
    finishTime: s.finishTime === null ? null : Date.parse(s.finishTime),
  }));

  it.each(['csv', 'ndjson'] as const)('%s', (format) => {
    const encoder = sessionEncoder(format);
    const text = encoder.header + sessions.map(encoder.encode).join('');
    expect(parseSessionFile(text, format)).toEqual({ ok: true, sessions: asImported });
  });
});
