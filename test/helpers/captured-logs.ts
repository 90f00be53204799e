import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { loggerOptions } from '../../src/http/logging.js';

/**
 * A logger configured as the server's (at trace, redaction included) whose output lines are
 * kept in `lines`: what a log collector would receive, for a test to search.
 */
export function capturedLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: pino({ ...(loggerOptions('trace') as object) }, sink), lines };
}
