import { Writable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { loggerOptions } from './logging.js';
import { lazyRequestLogger } from './request-logger.js';

function capture(level: 'warn' | 'info') {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const parent = pino({ ...(loggerOptions(level) as object) }, sink);
  const makeChild = vi.spyOn(parent, 'child');
  const log = lazyRequestLogger.call(null as never, parent as unknown as FastifyBaseLogger, { reqId: 'r-1' }, {}, null as never);
  return { lines, log, makeChild };
}

describe('the lazy request logger', () => {
  it('binds nothing while it writes nothing (info lines under LOG_LEVEL=warn)', () => {
    const { lines, log, makeChild } = capture('warn');
    log.info({ req: 'x' }, 'incoming request');
    log.debug('detail');
    expect(lines).toEqual([]);
    expect(makeChild).not.toHaveBeenCalled();
    expect(log.level).toBe('warn');
  });

  it('writes enabled lines with the request id, binding it once', () => {
    const { lines, log, makeChild } = capture('warn');
    log.warn({ code: 'X' }, 'first');
    log.error(new Error('boom'), 'second');
    expect(lines.map((l) => [l.reqId, l.msg])).toEqual([
      ['r-1', 'first'],
      ['r-1', 'second'],
    ]);
    expect(lines[0]).toMatchObject({ code: 'X', level: 40 });
    expect(makeChild).toHaveBeenCalledTimes(1);
  });

  it('keeps redaction and child bindings', () => {
    const { lines, log } = capture('info');
    log.child({ route: 'token' }).info({ body: { client_secret: 's3cret' } }, 'issued');
    expect(lines).toEqual([expect.objectContaining({ reqId: 'r-1', route: 'token', body: { client_secret: '[redacted]' } })]);
  });
});
