import { randomUUID } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { OperationDeps } from '../../operations/deps.js';
import { addMember, createTest, createWorkspace, describeTest, listMembers, listTests, listWorkspaces, removeMember, setTestPlan } from '../../operations/directory.js';
import { AddedMember, ListedTest, MemberView, RemovedMember, TestView, WorkspaceView } from '../../operations/views.js';
import { BadPlanError, parseTestPlan } from '../../plans/test-plan.js';
import { sessionSummary } from '../../results/session-summary.js';
import { PRODUCT_TYPES, type TestInput, type TestPlan } from '../../store/store.js';
import { requireRole, requireWorkspaceAccess } from '../caller.js';
import { emailField } from '../fields.js';
import { adminProblems } from '../problems.js';
import { adminResponses, Email } from '../schemas.js';
import { requireTestAccess } from './access.js';

const Uuid = Type.String({ format: 'uuid' });
const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '^[^\\u0000-\\u001f\\u007f]*\\S[^\\u0000-\\u001f\\u007f]*$', description: '1-200 printable characters.' });
const WorkspaceParams = Type.Object({ workspaceId: Uuid });
const MemberParams = Type.Object({ workspaceId: Uuid, email: Email });
const TestParams = Type.Object({ testId: Uuid });
const CreateWorkspaceBody = Type.Object({ id: Type.Optional(Uuid), name: Name }, { additionalProperties: false });
const EmailBody = Type.Object({ email: Email }, { additionalProperties: false });
const CreateTestBody = Type.Object(
  {
    id: Type.Optional(Uuid),
    title: Name,
    productType: Type.Optional(Type.Union(PRODUCT_TYPES.map((t) => Type.Literal(t)), { default: 'SURVEY' })),
    orderedAt: Type.Optional(Type.String({ format: 'date-time' })),
    orderedBy: Type.Optional(Type.Object({ email: Email, name: Type.Union([Name, Type.Null()]) }, { additionalProperties: false })),
    plan: Type.Optional(Type.Unknown({ description: 'A test plan, as for PUT /admin/api/tests/{testId}/plan.' })),
  },
  { additionalProperties: false },
);
const PlanBody = Type.Unknown({
  description: 'A test plan: {"id"?, "shortTest"?, "taskGroups"?: [{"id", "type"}], "tasks": [{"text", "taskType", "taskGroupId"?, ...}]}.',
});

/** A plan checked field by field, every problem listed, nothing written unless all is right (as `tests plan set`). */
function planOf(input: unknown): TestPlan {
  try {
    return parseTestPlan(input);
  } catch (error) {
    if (!(error instanceof BadPlanError)) throw error;
    throw adminProblems.invalid(`the test plan has ${error.problems.length} problem${error.problems.length === 1 ? '' : 's'}; nothing was written`, error.problems);
  }
}

/**
 * Workspaces (operators create them; account admins see those assigned to them), their members
 * and tests (operators, and account admins within their workspaces): the CLI's workspaces,
 * members and tests commands.
 */
export function registerDirectoryRoutes(app: FastifyInstance, deps: OperationDeps): void {
  const tags = { workspaces: ['Workspaces'], members: ['Members'], tests: ['Tests'] };

  app.get(
    '/admin/api/workspaces',
    { schema: { tags: tags.workspaces, summary: 'List workspaces (an account admin sees those assigned to them)', response: adminResponses({ 200: Type.Array(WorkspaceView) }) } },
    async (request) => {
      const caller = requireRole(request, 'account-admin');
      return caller.admin.role === 'operator' ? listWorkspaces(deps) : listWorkspaces(deps, await deps.store.admins.assignedWorkspaces(caller.admin.id));
    },
  );

  app.post<{ Body: Static<typeof CreateWorkspaceBody> }>(
    '/admin/api/workspaces',
    { schema: { tags: tags.workspaces, summary: 'Create a workspace (operators)', body: CreateWorkspaceBody, response: adminResponses({ 201: WorkspaceView }, [409]) } },
    async (request, reply) => {
      const caller = requireRole(request, 'operator');
      const workspace = await createWorkspace(deps, { id: request.body.id?.toLowerCase() ?? randomUUID(), name: request.body.name.trim() }, caller);
      return reply.code(201).send(workspace);
    },
  );

  app.get<{ Params: Static<typeof WorkspaceParams> }>(
    '/admin/api/workspaces/:workspaceId/members',
    { schema: { tags: tags.members, summary: "List a workspace's members", params: WorkspaceParams, response: adminResponses({ 200: Type.Array(MemberView) }, [404]) } },
    async (request) => {
      const workspaceId = request.params.workspaceId.toLowerCase();
      await requireWorkspaceAccess(request, deps.store, workspaceId);
      return listMembers(deps, workspaceId);
    },
  );

  app.post<{ Params: Static<typeof WorkspaceParams>; Body: Static<typeof EmailBody> }>(
    '/admin/api/workspaces/:workspaceId/members',
    {
      schema: { tags: tags.members, summary: 'Let an email read a workspace', params: WorkspaceParams, body: EmailBody, response: adminResponses({ 201: AddedMember }, [404, 409]) },
    },
    async (request, reply) => {
      const workspaceId = request.params.workspaceId.toLowerCase();
      const caller = await requireWorkspaceAccess(request, deps.store, workspaceId);
      return reply.code(201).send(await addMember(deps, workspaceId, emailField('email', request.body.email), caller));
    },
  );

  app.delete<{ Params: Static<typeof MemberParams> }>(
    '/admin/api/workspaces/:workspaceId/members/:email',
    { schema: { tags: tags.members, summary: 'Stop an email reading a workspace', params: MemberParams, response: adminResponses({ 200: RemovedMember }, [404]) } },
    async (request) => {
      const workspaceId = request.params.workspaceId.toLowerCase();
      const caller = await requireWorkspaceAccess(request, deps.store, workspaceId);
      return removeMember(deps, workspaceId, emailField('email', request.params.email), caller);
    },
  );

  app.get<{ Params: Static<typeof WorkspaceParams> }>(
    '/admin/api/workspaces/:workspaceId/tests',
    {
      schema: { tags: tags.tests, summary: "List a workspace's tests, sessions counted by status", params: WorkspaceParams, response: adminResponses({ 200: Type.Array(ListedTest) }, [404]) },
    },
    async (request) => {
      const workspaceId = request.params.workspaceId.toLowerCase();
      await requireWorkspaceAccess(request, deps.store, workspaceId);
      return listTests(deps, workspaceId);
    },
  );

  app.post<{ Params: Static<typeof WorkspaceParams>; Body: Static<typeof CreateTestBody> }>(
    '/admin/api/workspaces/:workspaceId/tests',
    { schema: { tags: tags.tests, summary: 'Create a test in a workspace', params: WorkspaceParams, body: CreateTestBody, response: adminResponses({ 201: TestView }, [404, 409]) } },
    async (request, reply) => {
      const workspaceId = request.params.workspaceId.toLowerCase();
      const caller = await requireWorkspaceAccess(request, deps.store, workspaceId);
      const body = request.body;
      const input: TestInput = {
        id: body.id?.toLowerCase() ?? randomUUID(),
        workspaceId,
        title: body.title.trim(),
        productType: body.productType ?? 'SURVEY',
        ...(body.orderedAt === undefined ? {} : { orderedAt: Date.parse(body.orderedAt) }),
        ...(body.orderedBy === undefined ? {} : { orderedBy: { email: emailField('orderedBy.email', body.orderedBy.email), name: body.orderedBy.name?.trim() ?? null } }),
        ...(body.plan === undefined ? {} : { plan: planOf(body.plan) }),
      };
      return reply.code(201).send(await createTest(deps, input, caller));
    },
  );

  app.get<{ Params: Static<typeof TestParams> }>(
    '/admin/api/tests/:testId',
    { schema: { tags: tags.tests, summary: 'A test', params: TestParams, response: adminResponses({ 200: ListedTest }, [404]) } },
    async (request) => {
      const { test } = await requireTestAccess(request, deps.store, request.params.testId.toLowerCase());
      return describeTest(deps, test);
    },
  );

  app.put<{ Params: Static<typeof TestParams>; Body: unknown }>(
    '/admin/api/tests/:testId/plan',
    { schema: { tags: tags.tests, summary: 'Replace the test plan of a test', params: TestParams, body: PlanBody, response: adminResponses({ 200: TestView }, [404]) } },
    async (request) => {
      const { caller } = await requireTestAccess(request, deps.store, request.params.testId.toLowerCase());
      return setTestPlan(deps, request.params.testId.toLowerCase(), planOf(request.body), caller);
    },
  );

  const SessionsQuery = Type.Object(
    {
      status: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Only sessions of this status (e.g. COMPLETE).' })),
      limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
      offset: Type.Integer({ minimum: 0, maximum: 10_000_000, default: 0 }),
    },
    { additionalProperties: false },
  );
  const SessionRow = Type.Object(
    {
      sessionId: Type.String(),
      audienceId: Type.Union([Type.String(), Type.Null()]),
      status: Type.String(),
      startTime: Type.String({ format: 'date-time' }),
      finishTime: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    },
    { title: 'AdminSession' },
  );
  const SessionsPage = Type.Object({ sessions: Type.Array(SessionRow), totalCount: Type.Integer({ minimum: 0 }) }, { title: 'AdminSessionPage' });

  app.get<{ Params: Static<typeof TestParams>; Querystring: Static<typeof SessionsQuery> }>(
    '/admin/api/tests/:testId/sessions',
    {
      schema: {
        tags: tags.tests,
        summary: "A page of a test's sessions of every status (or one), newest first",
        params: TestParams,
        querystring: SessionsQuery,
        response: adminResponses({ 200: SessionsPage }, [404]),
      },
    },
    async (request) => {
      const { test } = await requireTestAccess(request, deps.store, request.params.testId.toLowerCase());
      const { status, limit, offset } = request.query;
      const sessions = await deps.store.sessions.listSessions(test.id, offset, limit, status === undefined ? {} : { status });
      const totalCount = status === undefined ? test.sessionCount : await deps.store.sessions.countSessions(test.id, status);
      return {
        sessions: sessions.map(sessionSummary),
        totalCount,
      };
    },
  );

}
