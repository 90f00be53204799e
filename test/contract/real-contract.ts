import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { OpenAPIV3 } from 'openapi-types';

// ajv-formats is CommonJS; under NodeNext its default export is the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/**
 * The fixtures of the real contract, one per public document (api-evangelist/usertesting,
 * openapi/_original/): written by hand from it, describing the operations we implement.
 */
export const REAL_FIXTURES = ['real-results-v2.json', 'real-legacy-v1.json'] as const;

export const fixturePath = (fixture: string): string => fileURLToPath(new URL(fixture, import.meta.url));

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;

export interface RealOperation {
  fixture: string;
  method: string;
  /** As the document writes it, relative to its server. */
  path: string;
  /** From the host's root: the path of the document's server, then `path` (where ours serves it). */
  servedPath: string;
  /** The real operationId, or `GET /served/path` where the document names none (Legacy v1). */
  operationId: string;
  operation: OpenAPIV3.OperationObject;
}

/** A real operation the service does not implement yet, and the issue that brings it. */
export interface PlannedOperation {
  method: string;
  path: string;
  servedPath: string;
  operationId: string;
  issue: number;
}

/** What a document's server adds before its paths: `/usertesting/api` for v1, nothing for v2. */
const serverPath = (document: OpenAPIV3.Document): string =>
  new URL(document.servers?.[0]?.url ?? '/', 'https://server.invalid').pathname.replace(/\/$/, '');

/** The name an operation goes by here: its real operationId, else its method and served path. */
const operationName = (method: string, servedPath: string, operationId?: string): string => operationId ?? `${method.toUpperCase()} ${servedPath}`;

/**
 * The real documents write a nullable model as `nullable: true` beside `allOf`/`oneOf` (OpenAPI
 * 3.0.3 reads that as "null, or the model"); ajv applies `nullable` to `type` alone and would
 * still check null against the model. Such a schema is rewritten as `anyOf [it, null]`.
 */
function nullableCompositions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(nullableCompositions);
  if (typeof value !== 'object' || value === null) return value;
  const node = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, nullableCompositions(v)])) as Record<string, unknown>;
  if (node.nullable === true && (node.allOf || node.oneOf)) {
    const { nullable: _nullable, type: _type, ...model } = node;
    return { anyOf: [model, { type: 'null' }] };
  }
  return node;
}

/** A response as a client received it. */
export interface LiveResponse {
  status: number;
  headers: Headers;
  body: string;
}

const pointer = (...parts: string[]): string => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/**
 * Checks live responses against the real documents' schemas (OpenAPI 3.0: `nullable`, which
 * ajv knows). Only what the real document states is checked: its statuses, the media type
 * and schema of a body it declares, and the type of each header it declares when present.
 * What we add (extra fields, headers, the problem details of an error) is allowed, as a
 * client generated from the real document ignores it.
 */
export class RealContract {
  private readonly ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
  private readonly validators = new Map<string, ValidateFunction>();
  readonly operations: RealOperation[] = [];
  readonly planned: PlannedOperation[] = [];
  private readonly documents = new Map<string, OpenAPIV3.Document>();

  constructor(fixtures: readonly string[] = REAL_FIXTURES) {
    addFormats(this.ajv);
    for (const fixture of fixtures) {
      const document = JSON.parse(readFileSync(fixturePath(fixture), 'utf8')) as OpenAPIV3.Document & {
        'x-results-api-not-implemented'?: { method: string; path: string; operationId?: string; issue: number }[];
      };
      this.ajv.addSchema(nullableCompositions(document) as object, fixture);
      this.documents.set(fixture, document);
      const base = serverPath(document);
      for (const [path, item] of Object.entries(document.paths)) {
        for (const method of METHODS) {
          const operation = item?.[method];
          const servedPath = base + path;
          if (operation) this.operations.push({ fixture, method, path, servedPath, operationId: operationName(method, servedPath, operation.operationId), operation });
        }
      }
      for (const planned of document['x-results-api-not-implemented'] ?? []) {
        const servedPath = base + planned.path;
        this.planned.push({ ...planned, servedPath, operationId: operationName(planned.method, servedPath, planned.operationId) });
      }
    }
  }

  operation(operationId: string): RealOperation {
    const found = this.operations.find((o) => o.operationId === operationId);
    if (!found) throw new Error(`no real operation ${operationId} in the fixtures`);
    return found;
  }

  /** What in `response` breaks the real contract of `operationId`; empty when it conforms. */
  violations(operationId: string, response: LiveResponse): string[] {
    const { fixture, method, path, operation } = this.operation(operationId);
    const documented = operation.responses[String(response.status)] as OpenAPIV3.ResponseObject | undefined;
    if (!documented) return [`status ${response.status} is not in the real contract of ${operationId}`];
    const base = ['paths', path, method, 'responses', String(response.status)];
    const violations: string[] = [];

    for (const [name, header] of Object.entries((documented.headers ?? {}) as Record<string, OpenAPIV3.HeaderObject>)) {
      const value = response.headers.get(name);
      if (value === null) continue;
      const type = (header.schema as OpenAPIV3.SchemaObject | undefined)?.type;
      const typed = (type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
      const validate = this.validator(fixture, [...base, 'headers', name, 'schema']);
      if (!validate(typed)) violations.push(`header ${this.ajv.errorsText(validate.errors, { dataVar: name })} (got ${JSON.stringify(value)})`);
    }

    const content = documented.content ?? {};
    const mediaTypes = Object.keys(content);
    if (mediaTypes.length === 0) return violations;
    const mediaType = response.headers.get('content-type')?.split(';')[0]!.trim().toLowerCase();
    if (!mediaType || !content[mediaType]) {
      return [...violations, `content type ${mediaType ?? '(none)'} is not the real one (${mediaTypes.join(', ')})`];
    }
    // A body in another media type (a WebVTT transcript) is checked by its probes.
    if (!/[/+]json$/.test(mediaType)) return violations;
    let body: unknown;
    try {
      body = JSON.parse(response.body);
    } catch {
      return [...violations, `the body is not JSON: ${response.body.slice(0, 200)}`];
    }
    const validate = this.validator(fixture, [...base, 'content', mediaType, 'schema']);
    if (!validate(body)) violations.push(`${this.ajv.errorsText(validate.errors, { dataVar: 'body' })}: ${response.body.slice(0, 300)}`);
    return violations;
  }

  /**
   * The properties the real document describes for a 200 answer of `operationId` that `body`
   * lacks, by path (`sessions[0].participant.demographics.age`): the strict check of the Legacy
   * v1 family, whose document marks nothing optional or nullable. Every element of an array is
   * checked; a `oneOf` (v1's `transcript`) only for presence.
   */
  missingProperties(operationId: string, body: unknown): string[] {
    const { fixture, operation } = this.operation(operationId);
    const document = this.documents.get(fixture)!;
    const ok = operation.responses['200'] as OpenAPIV3.ResponseObject;
    const missing: string[] = [];
    const walk = (schema: OpenAPIV3.SchemaObject | OpenAPIV3.ReferenceObject | undefined, value: unknown, at: string): void => {
      const resolved = resolveRef(document, schema);
      if (!resolved || value === null || value === undefined) return;
      if (resolved.type === 'array' && Array.isArray(value)) value.forEach((item, i) => walk(resolved.items, item, `${at}[${i}]`));
      if (resolved.properties && typeof value === 'object' && !Array.isArray(value)) {
        for (const [name, property] of Object.entries(resolved.properties)) {
          const path = at ? `${at}.${name}` : name;
          if (!(name in value)) missing.push(path);
          else walk(property, (value as Record<string, unknown>)[name], path);
        }
      }
    };
    walk(ok.content?.['application/json']?.schema, body, '');
    return missing;
  }

  private validator(fixture: string, parts: string[]): ValidateFunction {
    const ref = `${fixture}#/${pointer(...parts)}`;
    let validate = this.validators.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: ref });
      this.validators.set(ref, validate);
    }
    return validate;
  }
}

/** A schema with a local `$ref` followed (the fixtures refer only within themselves). */
function resolveRef(
  document: OpenAPIV3.Document,
  schema: OpenAPIV3.SchemaObject | OpenAPIV3.ReferenceObject | undefined,
): OpenAPIV3.SchemaObject | undefined {
  let node = schema;
  while (node && '$ref' in node) {
    node = node.$ref.replace(/^#\//, '').split('/').reduce<unknown>((at, part) => (at as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')], document) as typeof node;
  }
  return node;
}

/** Reads a fetch Response once, keeping what the contract checks. */
export async function liveResponse(res: Response): Promise<LiveResponse> {
  return { status: res.status, headers: res.headers, body: await res.text() };
}
