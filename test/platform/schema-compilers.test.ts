import ValidatorSelector from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { expect, it, vi } from 'vitest';
import { ADMIN_PLUGINS } from '../../src/admin/plugins.js';
import { startAdminTestApp } from '../helpers/admin-app.js';

/**
 * The listeners compile their request validators and response serializers on first use
 * (src/http/lazy-compilers.ts), so starting them no longer proves that every declared schema
 * compiles. This test does: it records each validator and serializer the two listeners ask for
 * and compiles all of them now with Fastify's defaults, as start-up used to.
 */
const declared = vi.hoisted(() => ({ validators: [] as Compilation[], serializers: [] as Compilation[] }));
interface Compilation {
  route: string;
  compile: () => unknown;
}

vi.mock('../../src/http/lazy-compilers.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/http/lazy-compilers.js')>();
  const { buildValidator, buildSerializer } = real.lazyCompilers.compilersFactory!;
  type Route = { method: string; url: string; httpPart?: string; httpStatus?: string };
  type Build = (externalSchemas: never, options?: never) => (route: never) => unknown;
  // Wraps a lazy builder: each schema it is asked for is recorded with Fastify's eager compiler.
  const recording = (lazy: Build, eager: Build, into: Compilation[]) => (externalSchemas: never, options?: never) => {
    const compileLazily = lazy(externalSchemas, options);
    return (route: Route) => {
      into.push({ route: `${route.method} ${route.url} ${route.httpPart ?? route.httpStatus}`, compile: () => eager(externalSchemas, options)(route as never) });
      return compileLazily(route as never);
    };
  };
  return {
    lazyCompilers: {
      compilersFactory: {
        buildValidator: recording(buildValidator as Build, ValidatorSelector() as Build, declared.validators),
        buildSerializer: recording(buildSerializer as Build, SerializerSelector() as Build, declared.serializers),
      },
    },
  };
});

// Both listeners, the admin one with the console as `serve` builds it.
await startAdminTestApp({ plugins: ADMIN_PLUGINS });

function failuresOf(compilations: Compilation[]): string[] {
  return compilations.flatMap(({ route, compile }) => {
    try {
      compile();
      return [];
    } catch (err) {
      return [`${route}: ${(err as Error).message}`];
    }
  });
}

it('every request schema of the public and admin listeners compiles', () => {
  expect(declared.validators.length).toBeGreaterThan(100);
  expect(failuresOf(declared.validators)).toEqual([]);
});

it('every response schema of the public and admin listeners compiles', () => {
  expect(declared.serializers.length).toBeGreaterThan(300);
  expect(failuresOf(declared.serializers)).toEqual([]);
});
