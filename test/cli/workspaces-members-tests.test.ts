import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliSandbox, type CliSandbox } from './run-cli.js';

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
      expect(await cli.run(['members', 'add', '--workspace', 'lab', '--email', 'ada@example.com'])).toMatchObject({
        code: 2,
        stderr: 'error: --workspace must be a UUID such as 6f1c1a52-3f0e-4a59-9d1f-0d9b1b7d2a11 (got "lab")\n',
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
    it('creates a test with a given id and the default product type', async () => {
      const result = await cli.run(['tests', 'create', '--workspace', WS_ID, '--title', 'Checkout, v2', '--id', TEST_ID]);
      expect(result).toMatchObject({ code: 0, stdout: `created test "Checkout, v2" (id ${TEST_ID}) in workspace ${WS_ID}\n` });
    });

    it('creates a test with --product-type (--json)', async () => {
      const test = await cli.json(['tests', 'create', '--workspace', WS_ID, '--title', 'Prototype', '--product-type', 'prototype']);
      expect(test).toEqual({
        id: expect.stringMatching(UUID),
        workspaceId: WS_ID,
        title: 'Prototype',
        productType: 'prototype',
        createdAt: expect.stringMatching(ISO),
        sessionCount: 0,
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
      expect(lines[0]).toMatch(/^ID\s+TITLE\s+PRODUCT_TYPE\s+SESSIONS\s+CREATED$/);
      expect(lines[1]).toMatch(new RegExp(`^${TEST_ID}  Checkout, v2\\s+survey\\s+0\\s+\\S+Z$`));
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
