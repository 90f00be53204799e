import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliSandbox, type CliSandbox } from './run-cli.js';

/** The subcommands a `--help` output lists (commander's "Commands:" section), without `help`. */
function subcommandsIn(help: string): string[] {
  const section = help.split(/^Commands:$/m)[1] ?? '';
  return [...section.matchAll(/^ {2}([a-z][\w-]*)/gm)].map((m) => m[1]!).filter((name) => name !== 'help');
}

describe('results-api usage', () => {
  let cli: CliSandbox;
  beforeAll(() => {
    cli = cliSandbox();
  });
  afterAll(() => cli.cleanup());

  it('--help lists every noun and exits 0', async () => {
    const result = await cli.run(['--help']);
    expect(result.code).toBe(0);
    for (const noun of ['serve', 'migrate', 'demo', 'users', 'credentials', 'workspaces', 'members', 'tests', 'sessions']) {
      expect(result.stdout).toMatch(new RegExp(`^  ${noun}\\b`, 'm'));
    }
  });

  it('--version and -V print the package version and exit 0', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) expect(await cli.run([flag])).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('every command takes --json (found by walking the help tree)', async () => {
    const leaves: string[][] = [];
    let level: string[][] = [[]];
    while (level.length > 0) {
      const helps = await Promise.all(level.map((path) => cli.run([...path, '--help'])));
      const next: string[][] = [];
      helps.forEach((help, i) => {
        expect(help.code, level[i]!.join(' ')).toBe(0);
        const children = subcommandsIn(help.stdout);
        if (children.length === 0) {
          expect(help.stdout, `results-api ${level[i]!.join(' ')} --help`).toContain('--json');
          leaves.push(level[i]!);
        }
        next.push(...children.map((child) => [...level[i]!, child]));
      });
      level = next;
    }
    expect(leaves.map((l) => l.join(' '))).toEqual(expect.arrayContaining(['serve', 'users create', 'sessions import', 'members list']));
  });

  it.each([
    [[], /^Usage: results-api /m],
    [['bogus'], /^error: unknown command 'bogus'$/m],
    [['users'], /^Usage: results-api users /m],
    [['users', 'create'], /^error: required option '--email <email>' not specified$/m],
    [['users', 'list', '--bogus'], /^error: unknown option '--bogus'$/m],
    [['users', 'list', 'extra'], /^error: too many arguments for 'list'/m],
    [['sessions', 'import', '--test', '6f1c1a52-3f0e-4a59-9d1f-0d9b1b7d2a11'], /^error: missing required argument 'file'$/m],
  ])('exits 2 on a usage mistake: %j', async (args, message) => {
    const result = await cli.run(args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
  });

  it('touched no database for any of the above', () => {
    expect(existsSync(cli.dbPath)).toBe(false);
  });

  it('migrate creates and migrates the database, then reports it up to date', async () => {
    const first = await cli.json<{ applied: number[] }>(['migrate']);
    expect(first.applied.length).toBeGreaterThan(0);
    expect(first.applied).toEqual([...first.applied].sort((a, b) => a - b));
    expect(await cli.run(['migrate'])).toMatchObject({ code: 0, stdout: 'the database is up to date\n' });
    expect(await cli.json(['migrate'])).toEqual({ applied: [], transcriptCues: { stored: 0, unreadableSessions: [] }, searchIndexed: 0 });
  });

  it('migrate names the migrations it applies', async () => {
    const result = await cli.run(['migrate'], { DATABASE_URL: `sqlite:${cli.dir}/other.db` });
    expect(result).toMatchObject({ code: 0, stdout: expect.stringMatching(/^applied migrations? \d+(, \d+)*\n$/) });
  });

  it('reports a database it cannot open as one error line, exit 1', async () => {
    const blocker = cli.file('not-a-dir', '');
    const result = await cli.run(['users', 'list'], { DATABASE_URL: `sqlite:${blocker}/results.db` });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: .+\n$/);
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });
});
