import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The layer rule of `npm run lint` (.dependency-cruiser.cjs, docs/ARCHITECTURE.md#layers):
 * src/ passes it as it is, and a copy of src/ given one import that climbs, one pair of
 * modules that import each other and a folder no layer names fails it, each violation
 * reported under its rule's name.
 */
const ROOT = join(import.meta.dirname, '..', '..');
const DEPCRUISE = join(ROOT, 'node_modules', '.bin', 'depcruise');
const run = promisify(execFile);

/** Runs `npm run lint:layers`'s command line in `cwd`; never throws, returns its exit code and output. */
async function lintLayers(cwd: string): Promise<{ code: number; output: string }> {
  const scripts = (JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const [command, ...args] = scripts['lint:layers']!.split(' ');
  expect(command).toBe('depcruise');
  const configAt = args.indexOf('--config') + 1;
  args[configAt] = join(ROOT, args[configAt]!);
  try {
    const { stdout, stderr } = await run(DEPCRUISE, args, { cwd, timeout: 120_000 });
    return { code: 0, output: stdout + stderr };
  } catch (err) {
    const failed = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

describe('the layer rule in npm run lint', () => {
  let copy: string;

  beforeAll(async () => {
    copy = await mkdtemp(join(tmpdir(), 'layers-'));
    await cp(join(ROOT, 'src'), join(copy, 'src'), { recursive: true });
    await cp(join(ROOT, 'tsconfig.json'), join(copy, 'tsconfig.json'));
    // The store reaching up for the CLI's output helpers: a climb of four layers.
    await writeFile(join(copy, 'src/store/upward-probe.ts'), "import { table } from '../cli/output.js';\n\nexport const probe = table;\n");
    // Two domain modules that import each other: allowed by the layers, refused as a circle.
    await writeFile(join(copy, 'src/results/circle-a.ts'), "import { b } from './circle-b.js';\n\nexport const a = (): number => b() + 1;\n");
    await writeFile(join(copy, 'src/results/circle-b.ts'), "import type { a } from './circle-a.js';\n\nexport const b = (): ReturnType<typeof a> => 1;\n");
    // A folder no layer names.
    await mkdir(join(copy, 'src/unplaced'));
    await writeFile(join(copy, 'src/unplaced/stray.ts'), "import { systemClock } from '../clock.js';\n\nexport const now = (): number => systemClock.now();\n");
  }, 60_000);
  afterAll(async () => {
    if (copy) await rm(copy, { recursive: true, force: true });
  });

  it('is part of npm run lint', async () => {
    const scripts = (JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts['lint']).toContain('npm run lint:layers');
  });

  it('passes on src/ as it is: no import climbs, none closes a circle', async () => {
    const { code, output } = await lintLayers(ROOT);
    expect(output).toContain('no dependency violations found');
    expect(code).toBe(0);
  }, 120_000);

  it('fails on an import that climbs, on a circle and on a module of no layer, naming each rule', async () => {
    const { code, output } = await lintLayers(copy);
    expect(code).not.toBe(0);
    expect(output).toContain('error no-upward-import-from-store: src/store/upward-probe.ts → src/cli/output.ts');
    expect(output).toContain('The store layer may not import from a layer above it');
    expect(output).toMatch(/error no-circular: src\/results\/circle-[ab]\.ts →/);
    expect(output).toContain('error no-unlayered-module: src/unplaced/stray.ts → src/clock.ts');
    // Nothing else in the copy is reported.
    expect(output).toContain('3 dependency violations (3 errors, 0 warnings)');
  }, 120_000);
});
