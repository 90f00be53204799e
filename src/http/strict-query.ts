import type { TObject } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { apiErrors, truncate } from '../errors.js';
import { describeRule } from './validation-message.js';

const DECIMAL_INTEGER = /^-?\d{1,15}$/;
/** A number as plain decimal digits, with an optional fraction: `2`, `2.0`, `2.5` (whether it must be whole is the schema's rule). */
const DECIMAL_NUMBER = /^-?\d{1,15}(?:\.\d{1,15})?$/;

/**
 * A preValidation hook for a route with the `querystring` schema given, run on the raw query:
 * every parameter at most once, and integers and numbers written as plain decimal digits
 * (ajv's coercion would take "1e2", " 5" or "0x10").
 */
export function strictQuery(querystring: TObject) {
  const properties = querystring.properties as Record<string, { type?: string; multipleOf?: number }>;
  return (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const query = request.query as Record<string, unknown>;
    for (const name in query) {
      const value = query[name];
      if (Array.isArray(value)) return done(apiErrors.invalidParameter(`${name} must be given only once`));
      const schema = properties[name];
      const digits = schema?.type === 'integer' ? DECIMAL_INTEGER : schema?.type === 'number' ? DECIMAL_NUMBER : undefined;
      if (digits && typeof value === 'string' && !digits.test(value)) {
        return done(apiErrors.invalidParameter(`${name} must be ${describeRule(schema)} (got "${truncate(value)}")`));
      }
    }
    done();
  };
}
