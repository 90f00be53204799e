import { EXTENSION } from '../docs/extension.js';

/** The real contract's prefix, and the earlier one without /api that is served too (an extension). */
export const V2_PREFIXES = ['/api/v2', '/v2'] as const;
export type V2Prefix = (typeof V2_PREFIXES)[number];

/**
 * How an operation served under both prefixes is documented under `prefix`: on /api/v2 as the
 * real contract names it (its operationId, so generated clients name the method alike); on /v2
 * as an extension that points at the real path. `path` follows the prefix, e.g. `/sessionResults`.
 */
export function documentedOn(prefix: V2Prefix, operation: { path: string; summary: string; description: string; operationId: string }) {
  const { path, summary, description, operationId } = operation;
  if (prefix === '/api/v2') return { summary, description, operationId };
  return {
    summary: `${summary} (earlier path, an extension)`,
    description: `${description} The same operation as GET /api/v2${path.replace(/:(\w+)/g, '{$1}')}, served without the /api prefix.`,
    operationId: `${operationId}EarlierPath`,
    ...EXTENSION,
  };
}
