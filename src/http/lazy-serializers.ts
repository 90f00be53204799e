import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type SchemaController = NonNullable<FastifyServerOptions['schemaController']>;

/**
 * Fastify's own response serializers (fast-json-stringify), each compiled the first time it
 * serializes instead of when its route is registered. The two listeners declare a schema for
 * every status a route may answer, so start-up compiled ~920 serializers, most of them for
 * errors a process may never send, and kept each one's generated source and closures: ~2.8 MB
 * of live heap, which V8 then multiplies when it sets how far the heap may grow before its next
 * full collection. The cost moves to a route's first answer with a given status (~0.5 ms, once
 * per process). What is compiled, and its output, is Fastify's default.
 */
export const lazySerializers: SchemaController = {
  compilersFactory: {
    buildSerializer(externalSchemas, options) {
      const compile = SerializerSelector()(externalSchemas, options);
      return (route) => {
        let serialize: ((data: unknown) => string) | undefined;
        return (data) => (serialize ??= compile(route))(data);
      };
    },
  },
};
