import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';

export type ReadinessCheck = () => Promise<void>;

const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  checks: Type.Optional(Type.Record(Type.String(), Type.Union([Type.Literal('ok'), Type.Literal('failing')]))),
});

/**
 * /healthz: the process answers (for restarts). /readyz: every dependency answers (for load
 * balancers); a failing check names the dependency, never the error's detail.
 */
export function registerHealth(app: FastifyInstance, checks: Record<string, ReadinessCheck>): void {
  const schema = (summary: string) => ({
    summary,
    tags: ['Operations'],
    response: { 200: Health, 503: Health },
  });
  app.get('/healthz', { schema: schema('Liveness') }, async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    return { status: 'ok' as const };
  });
  app.get('/readyz', { schema: schema('Readiness: database and Redis reachable') }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const results = await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        try {
          await withTimeout(check(), 2000);
          return [name, 'ok'] as const;
        } catch (err) {
          request.log.warn({ check: name, err }, 'readiness check failed');
          return [name, 'failing'] as const;
        }
      }),
    );
    const ready = results.every(([, r]) => r === 'ok');
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ok' : 'unavailable', checks: Object.fromEntries(results) });
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
