import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { lazySerializers } from './lazy-serializers.js';

const Item = { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } } as const;
// fast-json-stringify cannot compile this: the reference resolves nowhere.
const Unbuildable = { type: 'object', properties: { detail: { $ref: 'nowhere#/definitions/missing' } } } as const;

async function appWith(response: Record<number, object>) {
  const app = Fastify({ schemaController: lazySerializers });
  app.get('/item', { schema: { response } }, async (request, reply) => {
    if ((request.query as { missing?: string }).missing !== undefined) return reply.code(404).send({ detail: 'x' });
    return { id: 7, name: 'seven', secret: 'not in the schema' };
  });
  await app.ready();
  return app;
}

describe('lazySerializers', () => {
  it('serializes with the route schema, as Fastify does by default (undeclared properties are left out)', async () => {
    const app = await appWith({ 200: Item });
    const res = await app.inject({ url: '/item' });
    expect(res.json()).toEqual({ id: 7, name: 'seven' });
    await app.close();
  });

  it('compiles a status only when it is first sent: the app starts although its 404 schema cannot compile', async () => {
    const app = await appWith({ 200: Item, 404: Unbuildable });
    expect((await app.inject({ url: '/item' })).statusCode).toBe(200);
    // The price of compiling late: such a schema fails on its first use instead of at start-up
    // (test/platform/response-serializers.test.ts compiles every schema the listeners declare).
    expect((await app.inject({ url: '/item?missing' })).statusCode).toBe(500);
    await app.close();
    await expect(Fastify().get('/item', { schema: { response: { 404: Unbuildable } } }, async () => ({})).ready()).rejects.toThrow();
  });
});
