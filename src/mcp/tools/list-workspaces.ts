import { Type } from '@sinclair/typebox';
import { workspaceView } from '../../legacy/views.js';
import { defineTool, NextCursor, pageOf, PageInput } from '../tool.js';

const Workspace = Type.Object({
  id: Type.String({ description: 'The workspace id (`uuid` in the Legacy v1 API).' }),
  name: Type.String(),
  uuid: Type.String(),
});

/** The workspaces where the caller is a member: GET /usertesting/api/v1/workspaces. */
export const listWorkspaces = defineTool({
  name: 'list_workspaces',
  title: 'List workspaces',
  description: 'The workspaces where you are a team member, oldest first. Their ids narrow list_tests.',
  input: Type.Object(PageInput),
  output: Type.Object({ workspaces: Type.Array(Workspace), total: Type.Integer(), nextCursor: NextCursor }),
  async run(caller, input, deps) {
    const page = pageOf('list_workspaces', '', (await deps.access.workspaces(caller)).map(workspaceView), input);
    return { workspaces: page.items, total: page.total, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  },
  render: (out) => [`${out.total} workspace(s):`, ...out.workspaces.map((w) => `- ${w.name} (${w.id})`)].join('\n'),
});
