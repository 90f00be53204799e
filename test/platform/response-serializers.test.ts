import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { buildAdminApp } from '../../src/admin/app.js';
import { ADMIN_PLUGINS } from '../../src/admin/plugins.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * The listeners compile their response serializers on first use (src/http/lazy-serializers.ts),
 * so starting them no longer proves that every declared response schema compiles. This test
 * does: it records each serializer the two listeners ask for and compiles all of them now,
 * as Fastify's default would have at start-up.
 */
const declared = vi.hoisted(() => [] as Array<{ route: string; compile: () => unknown }>);

vi.mock('../../src/http/lazy-serializers.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/http/lazy-serializers.js')>();
  const buildLazy = real.lazySerializers.compilersFactory!.buildSerializer!;
  return {
    lazySerializers: {
      compilersFactory: {
        buildSerializer: (externalSchemas: unknown, options?: object) => {
          const lazy = buildLazy(externalSchemas, options);
          return (route: Parameters<ReturnType<typeof buildLazy>>[0]) => {
            declared.push({ route: `${route.method} ${route.url} ${route.httpStatus}`, compile: () => SerializerSelector()(externalSchemas, options)(route) });
            return lazy(route);
          };
        },
      },
    },
  };
});

let t: TestApp;
let admin: FastifyInstance;
beforeAll(async () => {
  t = await startTestApp({ env: { ADMIN_PORT: '0', ADMIN_URL: 'http://127.0.0.1:8081' } });
  admin = await buildAdminApp({ ...t.runtime, logger: undefined }, ADMIN_PLUGINS);
  await admin.ready();
});
afterAll(async () => {
  await admin?.close();
  await t?.close();
});

it('every response schema of the public and admin listeners compiles', () => {
  expect(declared.length).toBeGreaterThan(300);
  const failures = declared.flatMap(({ route, compile }) => {
    try {
      compile();
      return [];
    } catch (err) {
      return [`${route}: ${(err as Error).message}`];
    }
  });
  expect(failures).toEqual([]);
});
