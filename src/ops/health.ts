import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { PUBLIC_SECURITY } from '../docs/security-schemes.js';
import { TAG } from '../docs/tags.js';
import { cacheControlHeader, jsonResponse } from '../http/response-headers.js';

export type ReadinessCheck = () => Promise<void>;

const Health = Type.Object(
  {
    status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
    checks: Type.Optional(Type.Record(Type.String(), Type.Union([Type.Literal('ok'), Type.Literal('failing')]))),
  },
  { title: 'Health' },
);

/**
 * /healthz: the process answers (for restarts). /readyz: every dependency answers (for load
 * balancers); a failing check names the dependency, never the error's detail.
 */
export function registerHealth(app: FastifyInstance, checks: Record<string, ReadinessCheck>): void {
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
    200: 'Every dependency answers.',
    503: 'A dependency does not answer; `checks` names it.',
  });
  app.get('/healthz', { schema: liveness }, async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    return { status: 'ok' as const };
  });
  app.get('/readyz', { schema: readiness }, async (request, reply) => {
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
