import type { TObject } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { apiErrors, truncate } from '../errors.js';
import { describeRule } from './validation-message.js';

const DECIMAL_INTEGER = /^-?\d{1,15}$/;

/**
 * A preValidation hook for a route with the `querystring` schema given, run on the raw query:
 * every parameter at most once, and integers written as plain decimal digits (ajv's coercion
 * would take "1e2", " 5" or "0x10").
 */
export function strictQuery(querystring: TObject) {
  const properties = querystring.properties as Record<string, { type?: string }>;
  return (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const query = request.query as Record<string, unknown>;
    for (const name in query) {
      const value = query[name];
      if (Array.isArray(value)) return done(apiErrors.invalidParameter(`${name} must be given only once`));
      const schema = properties[name];
      if (schema?.type === 'integer' && typeof value === 'string' && !DECIMAL_INTEGER.test(value)) {
        return done(apiErrors.invalidParameter(`${name} must be ${describeRule(schema)} (got "${truncate(value)}")`));
      }
    }
    done();
  };
}
