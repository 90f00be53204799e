import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import { truncate } from '../errors.js';

type PropertySchema = {
  type?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  multipleOf?: number;
  maxLength?: number;
  enum?: unknown[];
};

/** Describes the rule a parameter's schema states, e.g. "an integer from 1 to 500". */
export function describeRule(schema: PropertySchema | undefined): string {
  if (!schema) return 'valid';
  if (schema.type === 'integer' || (schema.type === 'number' && schema.multipleOf === 1)) {
    const { minimum: min, maximum: max } = schema;
    const kind = schema.type === 'integer' ? 'an integer' : 'a whole number';
    if (min !== undefined && max !== undefined) return `${kind} from ${min} to ${max}`;
    if (min !== undefined) return `${kind} of at least ${min}`;
    return kind;
  }
  if (schema.format === 'uuid') return 'a UUID';
  if (schema.enum) return `one of ${schema.enum.join(', ')}`;
  if (schema.type === 'string' && schema.maxLength !== undefined) return `a string of at most ${schema.maxLength} characters`;
  return schema.type ? `a ${schema.type}` : 'valid';
}

/** The one wording for a field (or query parameter) that a route's closed schema does not list. */
export const unknownFieldMessage = (where: string, name: string): string => `${where} has a field this route does not take: ${truncate(name)}`;

/**
 * Turns the first schema violation into one sentence that names the parameter and its rule,
 * for example `limit must be an integer from 1 to 500 (got "abc")`.
 */
export function validationMessage(
  errors: FastifySchemaValidationError[],
  schema: { properties?: Record<string, PropertySchema> } | undefined,
  input: unknown,
  where = 'the request',
): string {
  const first = errors[0];
  if (!first) return 'The request is invalid.';
  const fields = (input && typeof input === 'object' ? input : {}) as Record<string, unknown>;
  const params = first.params as Record<string, unknown>;
  if (first.keyword === 'required') {
    const name = String(params.missingProperty);
    return `${name} is required and must be ${describeRule(schema?.properties?.[name])}`;
  }
  if (first.keyword === 'additionalProperties') {
    const at = first.instancePath ? `${where}${first.instancePath.replace(/\//g, '.')}` : where;
    return unknownFieldMessage(at, String(params.additionalProperty));
  }
  const name = first.instancePath.split('/')[1];
  if (!name) return input === undefined || input === null ? 'The request has no parameters.' : 'The request is invalid.';
  const value = fields[name];
  if (Array.isArray(value)) return `${name} must be given only once`;
  const shown =
    typeof value === 'string' ? ` (got "${truncate(value)}")` : typeof value === 'number' ? ` (got ${value})` : '';
  return `${name} must be ${describeRule(schema?.properties?.[name])}${shown}`;
}
