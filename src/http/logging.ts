import type { FastifyRequest, FastifyServerOptions } from 'fastify';
import type { LogLevel } from '../config.js';
import { redactRequestUrl } from './log-redaction.js';

/**
 * Structured JSON logs. Request lines carry method, URL and address only: never headers
 * (they hold tokens and Basic credentials), and the URL without anything shaped like a token
 * or secret (see log-redaction.ts). Redaction below is a second line of defence.
 */
export function loggerOptions(level: LogLevel): FastifyServerOptions['logger'] {
  return {
    level,
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
