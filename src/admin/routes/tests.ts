import { randomUUID } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { OperationDeps } from '../../operations/deps.js';
import { createTest, describeTest, listTests, setTestPlan } from '../../operations/directory.js';
import { ListedTest, TestView } from '../../operations/views.js';
import { BadPlanError, parseTestPlan } from '../../plans/test-plan.js';
import { PRODUCT_TYPES, type TestInput, type TestPlan } from '../../store/store.js';
import { requireWorkspaceAccess } from '../caller.js';
import { emailField } from '../fields.js';
import { adminProblems } from '../problems.js';
import { adminResponses, Email, Text, Uuid } from '../schemas.js';
import { requireTestAccess } from './access.js';

const WorkspaceParams = Type.Object({ workspaceId: Uuid });
const TestParams = Type.Object({ testId: Uuid });
const CreateTestBody = Type.Object(
  {
    id: Type.Optional(Uuid),
    title: Text(200),
    productType: Type.Optional(Type.Union(PRODUCT_TYPES.map((t) => Type.Literal(t)), { default: 'SURVEY' })),
    orderedAt: Type.Optional(Type.String({ format: 'date-time' })),
    orderedBy: Type.Optional(Type.Object({ email: Email, name: Type.Union([Text(200), Type.Null()]) }, { additionalProperties: false })),
    plan: Type.Optional(Type.Unknown({ description: 'A test plan, as for PUT /admin/api/tests/{testId}/plan.' })),
  },
  { additionalProperties: false },
);
type CreateTestBody = Static<typeof CreateTestBody>;
const PlanBody = Type.Unknown({
  description: 'A test plan: {"id"?, "shortTest"?, "taskGroups"?: [{"id", "type"}], "tasks": [{"text", "taskType", "taskGroupId"?, ...}]}.',
});
const tags = ['Tests'];

/** A plan checked field by field, every problem listed, nothing written unless all is right (as `tests plan set`). */
function planOf(input: unknown, testId: string): TestPlan {
  try {
    return parseTestPlan(input, testId);
  } catch (error) {
    if (!(error instanceof BadPlanError)) throw error;
    throw adminProblems.invalid(`the test plan has ${error.problems.length} problem${error.problems.length === 1 ? '' : 's'}; nothing was written`, error.problems);
  }
}

/** The body of a new test as the store takes it: trimmed, lower-cased ids, times in epoch milliseconds. */
function testInputOf(workspaceId: string, body: CreateTestBody): TestInput {
  const id = body.id?.toLowerCase() ?? randomUUID();
  return {
    id,
    workspaceId,
    title: body.title.trim(),
    productType: body.productType ?? 'SURVEY',
    ...(body.orderedAt === undefined ? {} : { orderedAt: Date.parse(body.orderedAt) }),
    ...(body.orderedBy === undefined ? {} : { orderedBy: { email: emailField('orderedBy.email', body.orderedBy.email), name: body.orderedBy.name?.trim() ?? null } }),
    ...(body.plan === undefined ? {} : { plan: planOf(body.plan, id) }),
  };
}

/** A workspace's tests and their plans: operators, and account admins within their workspaces (`results-api tests`). */
export function registerTestRoutes(app: FastifyInstance, deps: OperationDeps): void {
  app.get<{ Params: Static<typeof WorkspaceParams> }>(
    '/admin/api/workspaces/:workspaceId/tests',
    { schema: { tags, summary: "List a workspace's tests, sessions counted by status", params: WorkspaceParams, response: adminResponses({ 200: Type.Array(ListedTest) }, [404]) } },
    async (request) => {
      const workspaceId = request.params.workspaceId.toLowerCase();
      await requireWorkspaceAccess(request, deps.store, workspaceId);
      return listTests(deps, workspaceId);
    },
  );

  app.post<{ Params: Static<typeof WorkspaceParams>; Body: CreateTestBody }>(
    '/admin/api/workspaces/:workspaceId/tests',
    { schema: { tags, summary: 'Create a test in a workspace', params: WorkspaceParams, body: CreateTestBody, response: adminResponses({ 201: TestView }, [404, 409]) } },
    async (request, reply) => {
      const workspaceId = request.params.workspaceId.toLowerCase();
      const caller = await requireWorkspaceAccess(request, deps.store, workspaceId);
      return reply.code(201).send(await createTest(deps, testInputOf(workspaceId, request.body), caller));
    },
  );

  app.get<{ Params: Static<typeof TestParams> }>(
    '/admin/api/tests/:testId',
    { schema: { tags, summary: 'A test', params: TestParams, response: adminResponses({ 200: ListedTest }, [404]) } },
    async (request) => {
      const { test } = await requireTestAccess(request, deps.store, request.params.testId.toLowerCase());
      return describeTest(deps, test);
    },
  );

  app.put<{ Params: Static<typeof TestParams>; Body: unknown }>(
    '/admin/api/tests/:testId/plan',
    { schema: { tags, summary: 'Replace the test plan of a test', params: TestParams, body: PlanBody, response: adminResponses({ 200: TestView }, [404]) } },
    async (request) => {
      const { caller, test } = await requireTestAccess(request, deps.store, request.params.testId.toLowerCase());
      return setTestPlan(deps, test.id, planOf(request.body, test.id), caller);
    },
  );
}
