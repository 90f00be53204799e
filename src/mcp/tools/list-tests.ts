import { Type } from '@sinclair/typebox';
import { workspaceStudyView } from '../../legacy/views.js';
import type { Test } from '../../store/store.js';
import { defineTool, Id, NextCursor, pageOf, PageInput } from '../tool.js';

const TestEntry = Type.Object(
  {
    uuid: Type.String({ description: 'The test id (testId elsewhere).' }),
    title: Type.String(),
    type: Type.String(),
    productType: Type.String(),
    orderedAt: Type.String({ description: 'When the test was ordered (ISO 8601).' }),
    orderedBy: Type.Optional(Type.Object({ email: Type.String(), name: Type.Optional(Type.String()) })),
  },
  { description: 'A test as the Legacy v1 workspace listing shows it (without its listing cursor).' },
);

/** The Legacy v1 entry of a test, whose cursor means a position in one workspace's listing only. */
const testEntry = (t: Test) => {
  const { cursor: _position, ...entry } = workspaceStudyView(t, 1);
  return entry;
};

/** The tests the caller may see, of one workspace or all: GET /usertesting/api/v1/workspaces/{id}. */
export const listTests = defineTool({
  name: 'list_tests',
  title: 'List tests',
  description: 'The tests (studies) you may see, oldest first, of one workspace or of all your workspaces. `uuid` is the testId the other tools take.',
  input: Type.Object({ workspaceId: Type.Optional(Id('Only the tests of this workspace (from list_workspaces).')), ...PageInput }),
  output: Type.Object({ tests: Type.Array(TestEntry), total: Type.Integer(), nextCursor: NextCursor }),
  async run(caller, input, deps) {
    const tests = input.workspaceId === undefined ? await deps.access.tests(caller) : await deps.access.testsOfWorkspace(caller, input.workspaceId);
    const page = pageOf('list_tests', input.workspaceId ?? '', tests.map(testEntry), input);
    return { tests: page.items, total: page.total, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  },
  render: (out) => [`${out.total} test(s):`, ...out.tests.map((t) => `- ${t.title} (${t.uuid}), ordered ${t.orderedAt}`)].join('\n'),
});
