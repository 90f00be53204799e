import type { FastifyRequest, FastifyServerOptions } from 'fastify';
import type { LogLevel } from '../config.js';

/**
 * Structured JSON logs. Request lines carry method, path and address only: never headers
 * (they hold tokens and Basic credentials) and never the query of an OAuth path (a client may
 * wrongly put its secret there). Redaction below is a second line of defence.
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
        url: request.url.startsWith('/oauth2/') ? request.url.split('?')[0] : request.url,
        remoteAddress: request.ip,
      }),
    },
  };
}
