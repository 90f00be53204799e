import ValidatorSelector, { type BuildCompilerFromPool } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type SchemaController = NonNullable<FastifyServerOptions['schemaController']>;
/** ajv-compiler's typings call the route definition Fastify passes a schema. */
type Compile = ReturnType<BuildCompilerFromPool>;
type Validate = ReturnType<Compile>;

/**
 * Fastify's own request validators (ajv) and response serializers (fast-json-stringify), each
 * compiled the first time it is used instead of when its route is registered. What is compiled,
 * and how it behaves, is Fastify's default; only the moment changes.
 *
 * Why: the two listeners declare ~920 response schemas (one per route and status, mostly for
 * errors a process may never send) and a validator for each route's query, parameters and
 * body. Compiling them all made start-up allocate ~80 MB (sampled; now ~59 MB), 24 MB of it in
 * ajv, and kept the generated code: the live heap after start-up was 24.8 MB, now 20.8 MB. That
 * heap matters beyond its size: a full collection soon after start-up lets the old generation
 * grow to four times it (V8 has not yet seen the program's pace). The price: a route's first
 * request (or first answer with a given status) compiles its schema, about a millisecond once
 * per process, and a schema that cannot compile fails there instead of at start-up
 * (test/platform/schema-compilers.test.ts compiles every declared one).
 */
export const lazyCompilers: SchemaController = {
  compilersFactory: {
    buildValidator(externalSchemas: Parameters<BuildCompilerFromPool>[0], options?: Parameters<BuildCompilerFromPool>[1]): Compile {
      const compile = ValidatorSelector()(externalSchemas, options);
      return (route) => lazyValidator(() => compile(route));
    },
    buildSerializer(externalSchemas, options) {
      const compile = SerializerSelector()(externalSchemas, options);
      return (route) => {
        let serialize: ((data: unknown) => string) | undefined;
        return (data) => (serialize ??= compile(route))(data);
      };
    },
  },
};

/**
 * A stand-in for an ajv validate function. Fastify reads `schemaEnv` before each call (to pass
 * the parent object, so that ajv may coerce a root value) and `errors` after a failed one; both
 * are read from the compiled function, and the first read compiles it.
 */
function lazyValidator(compile: () => Validate): Validate {
  let compiled: Validate | undefined;
  const real = () => (compiled ??= compile());
  const validate = (data: unknown, context?: object) => real()(data, context as never);
  return Object.defineProperties(validate, {
    schemaEnv: { get: () => (real() as { schemaEnv?: unknown }).schemaEnv },
    errors: { get: () => (real() as { errors?: unknown }).errors },
  }) as Validate;
}
