import Fastify, { type FastifyServerOptions } from 'fastify';
import { describe, expect, it } from 'vitest';
import { lazyCompilers } from './lazy-compilers.js';

const Item = { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } } as const;
// Neither ajv nor fast-json-stringify can compile this: the reference resolves nowhere.
const Unbuildable = { type: 'object', properties: { detail: { $ref: 'nowhere#/definitions/missing' } } } as const;
const Query = { type: 'object', properties: { limit: { type: 'integer', minimum: 1 } }, additionalProperties: false } as const;

async function appWith(schema: { response?: Record<number, object>; querystring?: object; body?: object }, options: FastifyServerOptions = { schemaController: lazyCompilers }) {
  const app = Fastify(options);
  const handler = async (request: { query: unknown; body: unknown }, reply: { code: (n: number) => { send: (b: unknown) => unknown } }) => {
    if ((request.query as { missing?: string }).missing !== undefined) return reply.code(404).send({ detail: 'x' });
    return { id: 7, name: 'seven', secret: 'not in the schema', query: request.query, body: request.body };
  };
  app.route({ method: schema.body ? 'POST' : 'GET', url: '/item', schema, handler });
  await app.ready();
  return app;
}

describe('lazyCompilers: response serializers', () => {
  it('serializes with the route schema, as Fastify does by default (undeclared properties are left out)', async () => {
    const app = await appWith({ response: { 200: Item } });
    const res = await app.inject({ url: '/item' });
    expect(res.json()).toEqual({ id: 7, name: 'seven' });
    await app.close();
  });

  it('compiles a status only when it is first sent: the app starts although its 404 schema cannot compile', async () => {
    const app = await appWith({ response: { 200: Item, 404: Unbuildable } });
    expect((await app.inject({ url: '/item' })).statusCode).toBe(200);
    // The price of compiling late: such a schema fails on its first use instead of at start-up
    // (test/platform/schema-compilers.test.ts compiles every schema the listeners declare).
    expect((await app.inject({ url: '/item?missing' })).statusCode).toBe(500);
    await app.close();
    await expect(appWith({ response: { 404: Unbuildable } }, {})).rejects.toThrow();
  });
});

describe('lazyCompilers: request validators', () => {
  it('answers a bad request exactly as Fastify’s default validator does', async () => {
    for (const options of [{ schemaController: lazyCompilers }, {}]) {
      const app = await appWith({ querystring: Query }, options);
      const res = await app.inject({ url: '/item?limit=0' });
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe('querystring/limit must be >= 1');
      // Coerced in place, and unknown properties removed, as by default.
      expect((await app.inject({ url: '/item?limit=3&other=1' })).json().query).toEqual({ limit: 3 });
      await app.close();
    }
  });

  it('coerces a root value too: the compiled function is asked for schemaEnv before the first call', async () => {
    // ajv can replace a root value only when Fastify passes the parent object, which it does
    // for validate functions that carry `schemaEnv`; a stand-in without it would leave "5".
    const app = await appWith({ body: { type: 'integer' } });
    const res = await app.inject({ method: 'POST', url: '/item', headers: { 'content-type': 'application/json' }, payload: '"5"' });
    expect(res.json().body).toBe(5);
    await app.close();
  });

  it('compiles a validator on its route’s first request: the app starts although one cannot compile', async () => {
    const app = await appWith({ querystring: Unbuildable });
    expect((await app.inject({ url: '/item' })).statusCode).toBe(500);
    await app.close();
    await expect(appWith({ querystring: Unbuildable }, {})).rejects.toThrow();
  });
});
