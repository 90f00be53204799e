// Bundles the admin console (src/admin/console/, preact + TypeScript) into dist/console/:
// content-hashed script and stylesheet, and an index.html naming them with their SRI hashes.
// `npm run build` runs it after tsc; the admin listener serves the result (src/admin/console-route.ts).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';
import * as esbuild from 'esbuild';

const root = fileURLToPath(new URL('../', import.meta.url));

/** Builds the console into `outdir` (default dist/console/); returns the files written. */
export async function buildConsole(outdir = `${root}dist/console`) {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  const result = await esbuild.build({
    entryPoints: [`${root}src/admin/console/main.tsx`],
    outdir,
    bundle: true,
    format: 'esm',
    target: ['chrome110', 'firefox115', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    entryNames: '[name]-[hash]',
    minify: true,
    sourcemap: 'linked',
    metafile: true,
    legalComments: 'linked',
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).map((file) => basename(file));
  const script = outputs.find((file) => file.endsWith('.js'));
  const stylesheet = outputs.find((file) => file.endsWith('.css'));
  if (!script || !stylesheet) throw new Error(`console build produced ${outputs.join(', ')}: expected a .js and a .css`);
  const integrity = (file) => `sha384-${createHash('sha384').update(readFileSync(`${outdir}/${file}`)).digest('base64')}`;
  const template = readFileSync(`${root}src/admin/console/index.html`, 'utf8');
  const html = template
    .replace('%SCRIPT%', `<script type="module" src="/console/${script}" integrity="${integrity(script)}"></script>`)
    .replace('%STYLESHEET%', `<link rel="stylesheet" href="/console/${stylesheet}" integrity="${integrity(stylesheet)}">`);
  writeFileSync(`${outdir}/index.html`, html);
  return [...outputs, 'index.html'];
}

// `node scripts/build-console.mjs [OUTDIR]` (default dist/console/; tests build into a directory of their own).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outdir = process.argv[2] ?? `${root}dist/console`;
  const files = await buildConsole(outdir);
  process.stdout.write(`console built: ${outdir}/{${files.join(',')}}\n`);
}
