import { PACKAGE_VERSION } from '../version.js';
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { AuthorizationServers } from '../oauth/authorization-servers.js';
import type { Config } from '../config.js';
import { EXTENSION_KEY } from './extension.js';
import { documentRefusals } from './refusal-responses.js';
import { securitySchemes } from './security-schemes.js';
import { TAG_DESCRIPTIONS } from './tags.js';

/**
 * The OpenAPI 3.1 document is generated from the route schemas that validate requests and
 * serialize responses, so it cannot drift from what the server does. Must be registered
 * before the routes it describes. Served as /openapi.json and /openapi.yaml.
 */
export async function registerOpenApi(
  app: FastifyInstance,
  deps: { config: Config; servers: AuthorizationServers },
): Promise<void> {
  const { config, servers } = deps;
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'results-api',
        version: PACKAGE_VERSION,
        summary: 'OAuth 2.0 client-credentials authorization servers and the research Results API.',
        description:
          'Get an access token from either authorization server with the client-credentials grant, then list the ' +
          'session results of a test page by page. Send the token as `Authorization: Bearer <token>` or as ' +
          '`token: <token>`. API errors are RFC 9457 problem details; authorization server errors are RFC 6749 §5.2 ' +
          `errors. The interactive reference is at ${config.baseUrl}/docs.`,
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      servers: [{ url: config.baseUrl, description: 'Results API (base_url)' }],
      tags: TAG_DESCRIPTIONS,
      components: { securitySchemes: securitySchemes(servers) as OpenAPIV3_1.ComponentsObject['securitySchemes'] },
    },
    transformObject: (document) =>
      'openapiObject' in document ? finishDocument(document.openapiObject as OpenAPIV3_1.Document, config) : document.swaggerObject,
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  app.get('/openapi.yaml', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('application/yaml').send(app.swagger({ yaml: true })),
  );
}

const AUTH_SERVER_PATH = /^\/(oauth2\/|\.well-known\/)/;

/** What @fastify/swagger cannot express from route schemas alone. */
function finishDocument(document: OpenAPIV3_1.Document, config: Config): OpenAPIV3_1.Document {
  const schemas = (document.components ??= {}).schemas ??= {};
  document.paths = hoistTitledSchemas(document.paths ?? {}, schemas) as OpenAPIV3_1.PathsObject;
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    // The authorization servers live at {auth_url}, which may be another host than {base_url}.
    if (config.authUrl !== config.baseUrl && AUTH_SERVER_PATH.test(path) && item) {
      item.servers = [{ url: config.authUrl, description: 'Authorization servers (auth_url)' }];
    }
    for (const operation of Object.values(item ?? {})) {
      liftExtensionMarks((operation as OpenAPIV3_1.OperationObject).parameters);
      const responses = (operation as OpenAPIV3_1.OperationObject).responses;
      for (const response of Object.values(responses ?? {})) liftRequiredHeaders(response as OpenAPIV3_1.ResponseObject);
    }
  }
  documentRefusals(document);
  return document;
}

/** An extension parameter says so on the parameter itself, where readers and generators look. */
function liftExtensionMarks(parameters: OpenAPIV3_1.OperationObject['parameters']): void {
  for (const parameter of (parameters ?? []) as (OpenAPIV3_1.ParameterObject & Record<string, unknown>)[]) {
    const schema = parameter.schema as Record<string, unknown> | undefined;
    if (schema?.[EXTENSION_KEY] === true) {
      delete schema[EXTENSION_KEY];
      parameter[EXTENSION_KEY] = true;
    }
  }
}

/** See responseHeader() in src/http/response-headers.ts. */
function liftRequiredHeaders(response: OpenAPIV3_1.ResponseObject): void {
  for (const header of Object.values(response.headers ?? {}) as OpenAPIV3_1.HeaderObject[]) {
    const schema = header.schema as Record<string, unknown> | undefined;
    if (schema?.['x-required'] === true) {
      delete schema['x-required'];
      header.required = true;
    }
  }
}

/**
 * Schemas with a `title` become named components, referenced where they are used: generated
 * clients get named types (SessionResultsPage, TokenResponse, …) and the document states
 * each one once.
 */
function hoistTitledSchemas(node: unknown, schemas: Record<string, unknown>): unknown {
  if (Array.isArray(node)) return node.map((item) => hoistTitledSchemas(item, schemas));
  if (node === null || typeof node !== 'object') return node;
  const copy = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, hoistTitledSchemas(value, schemas)]));
  const title = (node as { title?: unknown }).title;
  if (typeof title !== 'string') return copy;
  if (schemas[title] !== undefined && JSON.stringify(schemas[title]) !== JSON.stringify(copy)) {
    throw new Error(`Two different schemas are titled ${title}; give one another title.`);
  }
  schemas[title] = copy;
  return { $ref: `#/components/schemas/${title}` };
}
