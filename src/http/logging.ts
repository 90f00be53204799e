import type { FastifyRequest, FastifyServerOptions } from 'fastify';
import type { LogFormat, LogLevel } from '../config.js';
import { redactRequestUrl } from './log-redaction.js';

/**
 * Structured JSON logs. Request lines carry method, URL and address only: never headers
 * (they hold tokens and Basic credentials), and the URL without anything shaped like a token
 * or secret (see log-redaction.ts). Redaction below is a second line of defence.
 */
export function loggerOptions(level: LogLevel, format: LogFormat = 'json'): FastifyServerOptions['logger'] {
  return {
    level,
    // Readable lines for a person at a terminal, formatted off the main thread; the same
    // redaction applies (it happens before the line leaves pino).
    ...(format === 'pretty' ? { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } } } : {}),
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.token',
        'req.headers.cookie',
        '*.client_secret',
        '*.access_token',
        '*.token',
        '*.clientSecret',
        '*.accessToken',
      ],
      censor: '[redacted]',
    },
    serializers: {
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: redactRequestUrl(request.url, request.routeOptions?.url !== undefined),
        remoteAddress: request.ip,
      }),
    },
  };
}
