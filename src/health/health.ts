import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { PUBLIC_SECURITY } from '../docs/security-schemes.js';
import { TAG } from '../docs/tags.js';
import { cacheControlHeader, jsonResponse } from '../http/response-headers.js';

export type ReadinessCheck = () => Promise<void>;

const Health = Type.Object(
  {
    status: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('unavailable')]),
    checks: Type.Optional(Type.Record(Type.String(), Type.Union([Type.Literal('ok'), Type.Literal('failing')]))),
  },
  { title: 'Health' },
);

/**
 * /healthz: the process answers (for restarts). /readyz: every dependency answers (for load
 * balancers); a failing check names the dependency, never the error's detail. A failing
 * `degradable` check (Redis: the service works on without it) makes the status 'degraded'
 * but keeps the 200, so a load balancer does not take every process out at once.
 */
export function registerHealth(
  app: FastifyInstance,
  required: Record<string, ReadinessCheck>,
  degradable: Record<string, ReadinessCheck> = {},
): void {
  const noStore = cacheControlHeader('no-store', 'A probe must see the current state.');
  const schema = (summary: string, operationId: string, responses: Record<number, string>) => ({
    summary,
    tags: [TAG.operations],
    operationId,
    security: PUBLIC_SECURITY,
    response: Object.fromEntries(
      Object.entries(responses).map(([status, description]) => [status, jsonResponse(description, Health, { headers: noStore })]),
    ),
  });
  const liveness = schema('Liveness', 'getLiveness', { 200: 'The process answers.' });
  const readiness = schema('Readiness: database and Redis reachable', 'getReadiness', {
    200: "The database answers; `status` is 'degraded' when Redis does not (`checks` names it).",
    503: 'A dependency does not answer; `checks` names it.',
  });
  app.get('/healthz', { schema: liveness }, async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    return { status: 'ok' as const };
  });
  app.get('/readyz', { schema: readiness }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const checks = { ...required, ...degradable };
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
    const failing = (names: Record<string, ReadinessCheck>) => results.some(([name, r]) => r === 'failing' && name in names);
    const status = failing(required) ? 'unavailable' : failing(degradable) ? 'degraded' : 'ok';
    return reply.code(status === 'unavailable' ? 503 : 200).send({ status, checks: Object.fromEntries(results) });
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
