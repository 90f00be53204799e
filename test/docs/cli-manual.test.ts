/** The CLI manual (docs/CLI.md) names every command and option the program has, and no command it lacks. */
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { DEMO_TEST_PLAN } from '../../src/cli/demo.js';
import { buildProgram } from '../../src/cli/program.js';
import { readRepoFile } from '../helpers/markdown.js';

const MANUAL = readRepoFile('docs/CLI.md');

/** Every command that runs (`users create`, `admins clients create`, `audit`), with its options. */
function leaves(command: Command, path: string[] = []): { path: string; options: string[] }[] {
  if (command.commands.length === 0) return [{ path: path.join(' '), options: command.options.map((o) => o.long!) }];
  return command.commands.flatMap((sub) => leaves(sub, [...path, sub.name()]));
}

/** The commands the manual's table names in its first column: the leading words of each code span. */
function tabled(): string[] {
  const table = MANUAL.slice(MANUAL.indexOf('| command | does |'), MANUAL.indexOf('Exit codes:'));
  const firstColumns = table.split('\n').map((row) => row.split(' | ')[0]!);
  return firstColumns.flatMap((cell) => [...cell.matchAll(/`([^`]+)`/g)].map(([, span]) => /^[a-z][a-z-]*(?: [a-z][a-z-]*)*/.exec(span!)?.[0]).filter((c) => c !== undefined));
}

describe('the CLI manual', async () => {
  const commands = leaves(await buildProgram(undefined));

  it('has every command in its table', () => {
    const named = new Set(tabled());
    expect(commands.map((c) => c.path).filter((path) => !named.has(path))).toEqual([]);
  });

  it('names only commands the program has', () => {
    const groups = new Set(commands.flatMap((c) => c.path.split(' ').map((_, i, words) => words.slice(0, i + 1).join(' '))));
    expect(tabled().filter((path) => !groups.has(path))).toEqual([]);
  });

  it('names every option', () => {
    const options = new Set(commands.flatMap((c) => c.options));
    expect([...options].filter((option) => !new RegExp(`(?<![\\w-])${option}(?![\\w-])`).test(MANUAL))).toEqual([]);
  });

  it('says what plan `demo` seeds', () => {
    expect(MANUAL).toContain(`\`demo\` seeds a ${DEMO_TEST_PLAN.tasks.length}-task plan`);
  });
});
