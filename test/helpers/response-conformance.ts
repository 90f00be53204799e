import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import type { OpenAPIV3_1 } from 'openapi-types';

// ajv-formats is CommonJS; under NodeNext its default export is the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** One response as the server sent it, identified by its route template. */
export interface RecordedResponse {
  method: string;
  /** Fastify's route template, e.g. `/v1/workspaces/:workspaceUuid`. */
  routeUrl: string;
  /** The request URL, for the report. */
  url: string;
  status: number;
  headers: Record<string, string | undefined>;
  body: string;
}

type Document = OpenAPIV3_1.Document;
type Response = OpenAPIV3_1.ResponseObject;
type Header = OpenAPIV3_1.HeaderObject;

const DOCUMENT_ID = 'openapi.json';

/** `/a/:id` → `/a/{id}`. */
export const openApiPath = (routeUrl: string): string => routeUrl.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** Reports quote bodies; tokens stay out of test output. */
const quote = (body: string, max: number): string => body.replace(/"access_token":"[^"]*"/g, '"access_token":"…"').slice(0, max);

const pointer = (...parts: string[]): string => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/**
 * Checks responses against the OpenAPI document: the status is documented for the operation,
 * the content type is one it documents, the body validates against that media type's schema,
 * required headers are present and every documented header present has a valid value.
 * Operations the document does not describe (hidden routes) are not checked here; the
 * document's coverage is checked by test/docs/openapi.test.ts.
 */
export class ResponseConformance {
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly document: Document) {
    // The document's schemas are JSON Schema 2020-12 (OpenAPI 3.1); OpenAPI's own keywords
    // (`example`, `discriminator`, …) are annotations, hence not strict.
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats(this.ajv);
    this.ajv.addSchema(structuredClone(document) as object, DOCUMENT_ID);
  }

  /** Violations of the document by one response; empty when it conforms or is not documented. */
  check(r: RecordedResponse): string[] {
    const path = openApiPath(r.routeUrl);
    const method = r.method.toLowerCase() as OpenAPIV3_1.HttpMethods;
    const operation = this.document.paths?.[path]?.[method];
    if (!operation) return [];

    const statusKey = [String(r.status), `${String(r.status)[0]}XX`, 'default'].find((k) => operation.responses?.[k]);
    if (!statusKey) return [`status ${r.status} is not documented for ${method.toUpperCase()} ${path}`];
    const response = operation.responses![statusKey] as Response;
    const base = ['paths', path, method, 'responses', statusKey];
    return [...this.checkHeaders(r, response, base), ...this.checkBody(r, response, base)];
  }

  private checkHeaders(r: RecordedResponse, response: Response, base: string[]): string[] {
    const violations: string[] = [];
    for (const [name, header] of Object.entries((response.headers ?? {}) as Record<string, Header>)) {
      const value = r.headers[name.toLowerCase()];
      if (value === undefined) {
        if (header.required) violations.push(`required header ${name} is missing`);
        continue;
      }
      const validate = this.validator([...base, 'headers', name, 'schema']);
      const schemaType = (header.schema as { type?: string } | undefined)?.type;
      const typed = (schemaType === 'integer' || schemaType === 'number') && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
      if (!validate(typed)) violations.push(`header ${this.ajv.errorsText(validate.errors, { dataVar: name })} (got ${JSON.stringify(value)})`);
    }
    return violations;
  }

  private checkBody(r: RecordedResponse, response: Response, base: string[]): string[] {
    const content = response.content ?? {};
    const mediaTypes = Object.keys(content);
    if (mediaTypes.length === 0) {
      return r.body === '' ? [] : [`the response has a body, but none is documented: ${quote(r.body, 200)}`];
    }
    const contentType = r.headers['content-type'];
    const mediaType = contentType?.split(';')[0]!.trim().toLowerCase();
    if (!mediaType || !content[mediaType]) {
      return [`content type ${contentType ?? '(none)'} is not documented (documented: ${mediaTypes.join(', ')})`];
    }
    if (!/[/+]json$/.test(mediaType)) return [];
    let body: unknown;
    try {
      body = JSON.parse(r.body);
    } catch {
      return [`the body is not JSON: ${quote(r.body, 200)}`];
    }
    const validate = this.validator([...base, 'content', mediaType, 'schema']);
    return validate(body) ? [] : [`${this.ajv.errorsText(validate.errors, { dataVar: 'body' })}: ${quote(r.body, 300)}`];
  }

  private validator(parts: string[]): ValidateFunction {
    const ref = `${DOCUMENT_ID}#/${pointer(...parts)}`;
    let validate = this.validators.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: ref });
      this.validators.set(ref, validate);
    }
    return validate;
  }
}

/**
 * Checks every response the app sends against the document the app itself serves, as it is
 * sent. `violations()` lists what did not conform; test apps fail their suite on any.
 */
export function recordResponseConformance(app: FastifyInstance): { violations(): string[] } {
  let conformance: ResponseConformance | undefined;
  const violations: string[] = [];
  app.addHook('onSend', async (request, reply, payload) => {
    const routeUrl = request.routeOptions.url;
    if (routeUrl === undefined || request.method === 'HEAD') return payload;
    if (payload !== null && payload !== undefined && typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    conformance ??= new ResponseConformance(app.swagger() as Document);
    const headers: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    }
    const recorded: RecordedResponse = {
      method: request.method,
      routeUrl,
      url: request.url,
      status: reply.statusCode,
      headers,
      body: payload === null || payload === undefined ? '' : payload.toString(),
    };
    for (const violation of conformance.check(recorded)) {
      violations.push(`${recorded.method} ${recorded.url} → ${recorded.status}: ${violation}`);
    }
    return payload;
  });
  return { violations: () => [...violations] };
}
