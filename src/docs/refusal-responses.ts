import type { OpenAPIV3_1 } from 'openapi-types';
import { problemType, type ProblemCode } from '../errors.js';
import { isOAuthPath } from '../http/error-handler.js';
import { isLegacyPath, legacyErrorCode } from '../legacy/errors.js';

/**
 * Any request can be refused before its operation runs (see src/http/unrouted-errors.ts): a
 * path that is not valid percent-encoding or has an over-long segment (400), a request too slow
 * to arrive (408), headers over 16 KiB (431). An operation whose route schema documents no 4xx
 * at all gets these as one `4XX` response, in the body of its path's family, so a route added
 * without error responses is still documented truthfully (and Redocly's
 * `operation-4xx-response` rule stays satisfied for every future route).
 */

const REFUSALS: readonly { code: ProblemCode; status: number }[] = [
  { code: 'malformed-request', status: 400 },
  { code: 'request-timeout', status: 408 },
  { code: 'headers-too-large', status: 431 },
];

const DESCRIPTION =
  'The request was refused before this operation ran: its path is not valid percent-encoding or has a ' +
  'segment over 200 characters (400), it did not arrive in time (408), or its headers exceed 16 KiB (431).';

type Family = 'problem' | 'oauth' | 'legacy';

/** Component names of the shared body schemas, one per family. */
const SCHEMA_NAMES: Record<Family, string> = {
  problem: 'RequestRefusedProblem',
  oauth: 'RequestRefusedError',
  legacy: 'RequestRefusedLegacyError',
};

const STATUSES = REFUSALS.map((r) => r.status);

function refusalSchema(family: Family): OpenAPIV3_1.SchemaObject {
  const what = { type: 'string', description: 'What was wrong with the request.' } as const;
  switch (family) {
    case 'problem':
      return {
        description: 'RFC 9457 problem details (application/problem+json).',
        type: 'object',
        required: ['type', 'title', 'status', 'detail'],
        properties: {
          type: { type: 'string', enum: REFUSALS.map((r) => problemType(r.code)), description: 'Stable identifier of the problem (a URN, not a link).' },
          title: { type: 'string', description: "Short summary of the problem's type." },
          status: { type: 'integer', enum: STATUSES, description: 'The HTTP status code.' },
          detail: what,
        },
      };
    case 'oauth':
      return {
        description: 'RFC 6749 §5.2 error response.',
        type: 'object',
        required: ['error', 'error_description'],
        properties: { error: { type: 'string', enum: ['invalid_request'], description: 'RFC 6749 §5.2 error code.' }, error_description: what },
      };
    case 'legacy':
      return {
        description: 'The Legacy (v1) error body.',
        type: 'object',
        required: ['errorCode', 'errorMessage'],
        properties: { errorCode: { type: 'string', enum: STATUSES.map(legacyErrorCode), description: 'The HTTP status as a word.' }, errorMessage: what },
      };
  }
}

const MEDIA_TYPES: Record<Family, string> = { problem: 'application/problem+json', oauth: 'application/json', legacy: 'application/json' };

/** The family whose error bodies a path's refusals carry (the same test the error handler makes). */
const familyOf = (path: string): Family => (isOAuthPath(path) ? 'oauth' : isLegacyPath(path) ? 'legacy' : 'problem');

const OPERATION_KEYS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/**
 * Adds the shared `4XX` response to every operation of `document` that documents no 4xx. The
 * response is written out in each operation (tools that check responses need not resolve a
 * response `$ref`); its body schema is one named component per family.
 */
export function documentRefusals(document: OpenAPIV3_1.Document): void {
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [key, value] of Object.entries(item ?? {})) {
      if (!OPERATION_KEYS.has(key)) continue;
      const responses = ((value as OpenAPIV3_1.OperationObject).responses ??= {});
      if (Object.keys(responses).some((status) => status.startsWith('4'))) continue;
      const family = familyOf(path);
      const schemas = ((document.components ??= {}).schemas ??= {});
      schemas[SCHEMA_NAMES[family]] ??= refusalSchema(family);
      responses['4XX'] = {
        description: DESCRIPTION,
        content: { [MEDIA_TYPES[family]]: { schema: { $ref: `#/components/schemas/${SCHEMA_NAMES[family]}` } } },
      };
    }
  }
}
