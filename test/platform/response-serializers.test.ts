import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { expect, it, vi } from 'vitest';
import { ADMIN_PLUGINS } from '../../src/admin/plugins.js';
import { startAdminTestApp } from '../helpers/admin-app.js';

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

// Both listeners, the admin one with the console as `serve` builds it.
await startAdminTestApp({ plugins: ADMIN_PLUGINS });

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
