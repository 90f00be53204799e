import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliSandbox, type CliSandbox } from './run-cli.js';
import { planUuid, taskGroupUuid } from '../../src/store/plan-ids.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const WS_ID = 'a3a7f2d4-0b7e-4a57-8f63-2f0d3c1a9e01';
const TEST_ID = '6f1c1a52-3f0e-4a59-9d1f-0d9b1b7d2a11';
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

interface WorkspaceJson {
  id: string;
  name: string;
  createdAt: string;
}

describe('results-api workspaces, members and tests', () => {
  let cli: CliSandbox;
  beforeAll(() => {
    cli = cliSandbox();
  });
  afterAll(() => cli.cleanup());

  describe('workspaces', () => {
    it('creates a workspace with a given id, in any case (stored lowercase)', async () => {
      const result = await cli.run(['workspaces', 'create', '--name', '  Lab  ', '--id', WS_ID.toUpperCase()]);
      expect(result).toMatchObject({ code: 0, stdout: `created workspace "Lab" (id ${WS_ID})\n`, stderr: '' });
    });

    it('creates a workspace with a generated id (--json)', async () => {
      const ws = await cli.json<WorkspaceJson>(['workspaces', 'create', '--name', 'Field study']);
      expect(ws).toEqual({ id: expect.stringMatching(UUID), name: 'Field study', createdAt: expect.stringMatching(ISO) });
    });

    it('refuses a bad id, a blank name and a duplicate id, changing nothing', async () => {
      expect(await cli.run(['workspaces', 'create', '--name', 'X', '--id', 'not-a-uuid'])).toMatchObject({
        code: 2,
        stdout: '',
        stderr: 'error: --id must be a UUID such as 6f1c1a52-3f0e-4a59-9d1f-0d9b1b7d2a11 (got "not-a-uuid")\n',
      });
      expect(await cli.run(['workspaces', 'create', '--name', '   '])).toMatchObject({
        code: 2,
        stderr: 'error: --name must be 1-200 printable characters (got "   ")\n',
      });
      expect(await cli.run(['workspaces', 'create', '--name', 'Again', '--id', WS_ID])).toMatchObject({
        code: 1,
        stderr: `error: workspace ${WS_ID} already exists\n`,
      });
      const list = await cli.json<WorkspaceJson[]>(['workspaces', 'list']);
      expect(list.map((w) => w.name)).toEqual(['Lab', 'Field study']);
    });

    it('lists workspaces as a table', async () => {
      const result = await cli.run(['workspaces', 'list']);
      const lines = result.stdout.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^ID\s+NAME\s+CREATED$/);
      expect(lines[1]).toMatch(new RegExp(`^${WS_ID}  Lab\\s+\\S+Z$`));
      expect(lines).toHaveLength(3);
    });
  });

  describe('members', () => {
    it('adds members (human and --json)', async () => {
      await cli.json(['users', 'create', '--email', 'ada@example.com']);
      expect(await cli.run(['members', 'add', '--workspace', WS_ID, '--email', 'Ada@Example.com'])).toMatchObject({
        code: 0,
        stdout: `added Ada@Example.com to workspace ${WS_ID}\n`,
      });
      // No API user has this email yet: added all the same (membership is by email), with a hint.
      expect(await cli.run(['members', 'add', '--workspace', WS_ID, '--email', 'grace@example.com'])).toMatchObject({
        code: 0,
        stdout:
          `added grace@example.com to workspace ${WS_ID}\n` +
          'note: no API user has this email yet; register one with: results-api users create --email grace@example.com\n',
      });
      await cli.json(['members', 'remove', '--workspace', WS_ID, '--email', 'grace@example.com']);
      expect(await cli.json(['members', 'add', '--workspace', WS_ID, '--email', 'grace@example.com'])).toEqual({
        workspaceId: WS_ID,
        email: 'grace@example.com',
        addedAt: expect.stringMatching(ISO),
        userExists: false,
      });
    });

    it('refuses bad input, an unknown workspace and a duplicate member', async () => {
      expect(await cli.run(['members', 'add', '--workspace', WS_ID, '--email', 'ada@'])).toMatchObject({
        code: 2,
        stderr: 'error: --email must be an email address (got "ada@")\n',
      });
      // A workspace may be named by its name (any case) when no other workspace has it.
      expect(await cli.run(['members', 'add', '--workspace', 'lab', '--email', 'ada@example.com'])).toMatchObject({
        code: 1,
        stderr: `error: ada@example.com is already a member of workspace ${WS_ID}\n`,
      });
      expect(await cli.run(['members', 'add', '--workspace', 'Nowhere', '--email', 'ada@example.com'])).toMatchObject({
        code: 1,
        stderr: 'error: no workspace named "Nowhere" (results-api workspaces list shows them)\n',
      });
      expect(await cli.run(['members', 'add', '--workspace', UNKNOWN_ID, '--email', 'ada@example.com'])).toMatchObject({
        code: 1,
        stderr: `error: no workspace with id ${UNKNOWN_ID}\n`,
      });
      expect(await cli.run(['members', 'add', '--workspace', WS_ID, '--email', 'ADA@example.com'])).toMatchObject({
        code: 1,
        stderr: `error: ADA@example.com is already a member of workspace ${WS_ID}\n`,
      });
      expect(await cli.run(['members', 'list', '--workspace', UNKNOWN_ID])).toMatchObject({
        code: 1,
        stderr: `error: no workspace with id ${UNKNOWN_ID}\n`,
      });
    });

    it('names a workspace by its name when unique, and refuses an ambiguous name listing the ids', async () => {
      expect(await cli.json<{ email: string }[]>(['members', 'list', '--workspace', 'LAB'])).toEqual(
        await cli.json<{ email: string }[]>(['members', 'list', '--workspace', WS_ID]),
      );
      const twins = [await cli.json<WorkspaceJson>(['workspaces', 'create', '--name', 'Twin']), await cli.json<WorkspaceJson>(['workspaces', 'create', '--name', 'twin'])];
      const result = await cli.run(['members', 'add', '--workspace', 'Twin', '--email', 'ada@example.com']);
      expect(result).toMatchObject({ code: 1, stdout: '' });
      expect(result.stderr).toBe(`error: 2 workspaces are named "Twin": name one by its id (${twins.map((w) => w.id).join(', ')})\n`);
      expect(await cli.json(['members', 'list', '--workspace', twins[0]!.id])).toEqual([]);
    });

    it('lists members', async () => {
      const human = await cli.run(['members', 'list', '--workspace', WS_ID]);
      expect(human.stdout.split('\n').map((l) => l.split(/\s+/)[0])).toEqual(['EMAIL', 'Ada@Example.com', 'grace@example.com', '']);
      const list = await cli.json<{ email: string }[]>(['members', 'list', '--workspace', WS_ID]);
      expect(list.map((m) => m.email)).toEqual(['Ada@Example.com', 'grace@example.com']);
    });

    it('removes a member, and says so when it is not one', async () => {
      expect(await cli.run(['members', 'remove', '--workspace', WS_ID, '--email', 'GRACE@example.com'])).toMatchObject({
        code: 0,
        stdout: `removed GRACE@example.com from workspace ${WS_ID}\n`,
      });
      expect(await cli.run(['members', 'remove', '--workspace', WS_ID, '--email', 'grace@example.com'])).toMatchObject({
        code: 1,
        stderr: `error: grace@example.com is not a member of workspace ${WS_ID}\n`,
      });
      const list = await cli.json<{ email: string }[]>(['members', 'list', '--workspace', WS_ID]);
      expect(list.map((m) => m.email)).toEqual(['Ada@Example.com']);
    });

    it('removes with --json', async () => {
      await cli.json(['members', 'add', '--workspace', WS_ID, '--email', 'linus@example.com']);
      expect(await cli.json(['members', 'remove', '--workspace', WS_ID, '--email', 'linus@example.com'])).toEqual({
        workspaceId: WS_ID,
        email: 'linus@example.com',
        removed: true,
      });
    });
  });

  describe('tests', () => {
    const PLAN_WS = 'b4b8f3e5-1c8f-4b68-9f74-3f1e4d2b0f12';
    beforeAll(async () => {
      await cli.run(['workspaces', 'create', '--name', 'Plans', '--id', PLAN_WS]);
    });

    it('creates a test with a given id and the default product type', async () => {
      const result = await cli.run(['tests', 'create', '--workspace', WS_ID, '--title', 'Checkout, v2', '--id', TEST_ID]);
      expect(result).toMatchObject({ code: 0, stdout: `created test "Checkout, v2" (id ${TEST_ID}) in workspace ${WS_ID}\n` });
    });

    it('creates a test with --product-type (--json)', async () => {
      const test = await cli.json(['tests', 'create', '--workspace', WS_ID, '--title', 'Prototype', '--product-type', 'think_out_loud']);
      expect(test).toEqual({
        id: expect.stringMatching(UUID),
        workspaceId: WS_ID,
        title: 'Prototype',
        productType: 'THINK_OUT_LOUD',
        type: 'STUDYV2',
        createdAt: expect.stringMatching(ISO),
        orderedAt: expect.stringMatching(ISO),
        orderedBy: null,
        plan: null,
        sessionCount: 0,
      });
    });

    it('creates a test with who ordered it, when, and its plan from a file (readable ids stored as the UUIDs they stand for)', async () => {
      const file = join(cli.dir, 'plan.json');
      writeFileSync(file, JSON.stringify({ id: 'p1', taskGroups: [{ id: 'm', type: 'MAIN' }], tasks: [{ text: 'Go', taskType: 'blank', taskGroupId: 'm' }] }));
      const args = ['--ordered-by', 'rita@example.com', '--ordered-by-name', 'Rita', '--ordered-at', '2024-05-01T09:30:00Z', '--plan', file];
      const test = await cli.json<{ id: string }>(['tests', 'create', '--workspace', PLAN_WS, '--title', 'Planned', ...args]);
      const planId = planUuid(test.id, 'p1');
      expect(test).toMatchObject({
        productType: 'SURVEY',
        orderedAt: '2024-05-01T09:30:00.000Z',
        orderedBy: { email: 'rita@example.com', name: 'Rita' },
        plan: { id: planId, shortTest: false, taskGroups: [{ id: taskGroupUuid(planId, 'm'), type: 'MAIN' }], tasks: [{ text: 'Go', taskType: 'blank', taskGroupId: taskGroupUuid(planId, 'm') }] },
      });
    });

    it('tests plan set replaces a plan; a bad plan file is refused field by field, writing nothing', async () => {
      const [test] = await cli.json<{ id: string }[]>(['tests', 'list', '--workspace', PLAN_WS]);
      const good = join(cli.dir, 'good.json');
      writeFileSync(good, JSON.stringify({ shortTest: true, tasks: [{ text: 'Rate it', taskType: 'rating_scale', scaleMinimum: 1, scaleMaximum: 5 }] }));
      expect(await cli.run(['tests', 'plan', 'set', '--test', test!.id, good])).toMatchObject({
        code: 0,
        stdout: `set the test plan of "Planned" (id ${test!.id}): 1 tasks\n`,
      });
      const bad = join(cli.dir, 'bad.json');
      writeFileSync(bad, JSON.stringify({ tasks: [{ text: '', taskType: 'dance' }, { text: 'x', taskType: 'blank', taskGroupId: 'nope' }] }));
      const refused = await cli.run(['tests', 'plan', 'set', '--test', test!.id, bad]);
      expect(refused.code).toBe(1);
      expect(refused.stderr.split('\n')).toEqual([
        `${bad}: tasks[0].text: expected string length greater or equal to 1`,
        expect.stringMatching(new RegExp(`^${bad}: tasks\\[0\\]\\.taskType: .*\\(one of blank, `)),
        `error: ${bad}: the test plan has 2 problems; nothing was written`,
        '',
      ]);
      const deep = join(cli.dir, 'deep.json');
      writeFileSync(deep, `{"tasks":[{"text":${'['.repeat(5000)}${']'.repeat(5000)},"taskType":"blank"}]}`);
      expect(await cli.run(['tests', 'plan', 'set', '--test', test!.id, deep])).toMatchObject({
        code: 1,
        stderr: `${deep}: the plan nests arrays and objects more than 32 levels deep\nerror: ${deep}: the test plan has 1 problem; nothing was written\n`,
      });
      const huge = join(cli.dir, 'huge.json');
      writeFileSync(huge, `{"tasks":[${'{},'.repeat(400_000)}{}]}`);
      expect(await cli.run(['tests', 'plan', 'set', '--test', test!.id, huge])).toMatchObject({ code: 1, stderr: expect.stringMatching(/huge\.json is larger than a test plan may be \(1 MiB/) });
      const notJson = join(cli.dir, 'not.json');
      writeFileSync(notJson, '{"tasks": [');
      expect(await cli.run(['tests', 'plan', 'set', '--test', test!.id, notJson])).toMatchObject({ code: 1, stderr: expect.stringMatching(/is not JSON/) });
      expect(await cli.run(['tests', 'plan', 'set', '--test', test!.id, join(cli.dir, 'missing.json')])).toMatchObject({
        code: 2,
        stderr: expect.stringMatching(/cannot read the test plan file .*missing\.json: ENOENT/),
      });
      expect(await cli.run(['tests', 'plan', 'set', '--test', UNKNOWN_ID, good])).toMatchObject({ code: 1, stderr: `error: no test with id ${UNKNOWN_ID}\n` });
      const [after] = await cli.json<{ plan: unknown }[]>(['tests', 'list', '--workspace', PLAN_WS]);
      expect(after!.plan).toMatchObject({ shortTest: true, tasks: [{ text: 'Rate it' }] });
    });

    it('refuses a product type outside the real enum, an ordered-at without a zone, a name without an email', async () => {
      expect(await cli.run(['tests', 'create', '--workspace', WS_ID, '--title', 'T', '--product-type', 'video'])).toMatchObject({
        code: 2,
        stderr: 'error: --product-type must be one of SURVEY, LIVE_CONVERSATION, NON_THINK_OUT_LOUD, THINK_OUT_LOUD (got "video")\n',
      });
      expect(await cli.run(['tests', 'create', '--workspace', WS_ID, '--title', 'T', '--ordered-at', '2024-05-01 09:30'])).toMatchObject({
        code: 2,
        stderr: expect.stringMatching(/^error: --ordered-at must be an ISO 8601 time with a zone/),
      });
      expect(await cli.run(['tests', 'create', '--workspace', WS_ID, '--title', 'T', '--ordered-by-name', 'R'])).toMatchObject({
        code: 2,
        stderr: 'error: --ordered-by-name needs --ordered-by\n',
      });
    });

    it('refuses an unknown workspace, a duplicate id and a bad title, changing nothing', async () => {
      expect(await cli.run(['tests', 'create', '--workspace', UNKNOWN_ID, '--title', 'T'])).toMatchObject({
        code: 1,
        stderr: `error: no workspace with id ${UNKNOWN_ID}\n`,
      });
      expect(await cli.run(['tests', 'create', '--workspace', WS_ID, '--title', 'T', '--id', TEST_ID])).toMatchObject({
        code: 1,
        stderr: `error: test ${TEST_ID} already exists\n`,
      });
      expect(await cli.run(['tests', 'create', '--workspace', WS_ID, '--title', ''])).toMatchObject({
        code: 2,
        stderr: 'error: --title must be 1-200 printable characters (got "")\n',
      });
      expect(await cli.json<unknown[]>(['tests', 'list', '--workspace', WS_ID])).toHaveLength(2);
    });

    it('lists tests', async () => {
      const human = await cli.run(['tests', 'list', '--workspace', WS_ID]);
      const lines = human.stdout.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^ID\s+TITLE\s+PRODUCT_TYPE\s+TASKS\s+SESSIONS\s+COMPLETED\s+ORDERED$/);
      expect(lines[1]).toMatch(new RegExp(`^${TEST_ID}  Checkout, v2\\s+SURVEY\\s+0\\s+0\\s+0\\s+\\S+Z$`));
      const list = await cli.json<{ title: string }[]>(['tests', 'list', '--workspace', WS_ID]);
      expect(list.map((t) => t.title)).toEqual(['Checkout, v2', 'Prototype']);
    });

    it('prints an empty list plainly', async () => {
      const ws = await cli.json<WorkspaceJson>(['workspaces', 'create', '--name', 'Empty']);
      expect(await cli.run(['tests', 'list', '--workspace', ws.id])).toMatchObject({ code: 0, stdout: 'no tests\n' });
      expect(await cli.run(['members', 'list', '--workspace', ws.id, '--json'])).toMatchObject({ code: 0, stdout: '[]\n' });
    });
  });
});
