import type { FastifyRequest } from 'fastify';
import { apiErrors, truncate } from '../errors.js';
import { describeRule } from './validation-message.js';

const DECIMAL_INTEGER = /^-?\d{1,15}$/;

/**
 * Runs before schema validation, on the raw query: every parameter at most once, and
 * integers written as plain decimal digits (ajv's coercion would take "1e2", " 5" or "0x10").
 */
export async function strictQuery(request: FastifyRequest): Promise<void> {
  const properties = (request.routeOptions.schema?.querystring as { properties?: Record<string, { type?: string }> })
    ?.properties;
  const query = request.query as Record<string, unknown>;
  for (const [name, value] of Object.entries(query)) {
    if (Array.isArray(value)) throw apiErrors.invalidParameter(`${name} must be given only once`);
    const schema = properties?.[name];
    if (schema?.type === 'integer' && typeof value === 'string' && !DECIMAL_INTEGER.test(value)) {
      throw apiErrors.invalidParameter(`${name} must be ${describeRule(schema)} (got "${truncate(value)}")`);
    }
  }
}
