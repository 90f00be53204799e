#!/usr/bin/env node
/**
 * Where a server's CPU time went, from a `.cpuprofile` written by `node --cpu-prof` (the
 * harness does this with `--cpu-prof`): self time per function and per package, idle excluded.
 *
 * Usage: node bench/profile-summary.mjs <file.cpuprofile> [top]
 */
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

/** Who a frame belongs to: a package under node_modules, our build, Node itself, or V8. */
function ownerOf(url, functionName) {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node core';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  if (url.includes('/dist/')) return 'results-api (dist)';
  return url.replace(/^file:\/\//, '');
}

function shortUrl(url) {
  if (!url) return '';
  const pkg = /node_modules\/(.*)$/.exec(url);
  if (pkg) return pkg[1];
  const dist = /\/(dist\/.*)$/.exec(url);
  return dist ? dist[1] : url.replace(/^file:\/\//, '');
}

export function summarizeProfile(file, top = 25) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

  const functions = new Map();
  const owners = new Map();
  let busyUs = 0;
  let idleUs = 0;
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id).callFrame;
    if (functionName === '(idle)') {
      idleUs += us;
      continue;
    }
    busyUs += us;
    const key = `${functionName || '(anonymous)'} ${shortUrl(url)}${url ? `:${lineNumber + 1}` : ''}`.trim();
    functions.set(key, (functions.get(key) ?? 0) + us);
    const owner = ownerOf(url, functionName || '(anonymous)');
    owners.set(owner, (owners.get(owner) ?? 0) + us);
  }
  const ranked = (map) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: Math.round(us / 1000), percent: Number(((us / busyUs) * 100).toFixed(1)) }));
  const result = {
    busyMs: Math.round(busyUs / 1000),
    idleMs: Math.round(idleUs / 1000),
    byOwner: ranked(owners),
    byFunction: ranked(functions),
  };
  const lines = [`busy ${result.busyMs} ms, idle ${result.idleMs} ms; self time, % of busy:`, '', 'by package:'];
  for (const o of result.byOwner) lines.push(`  ${String(o.percent).padStart(5)}%  ${o.name}`);
  lines.push('', 'by function:');
  for (const f of result.byFunction) lines.push(`  ${String(f.percent).padStart(5)}%  ${f.name}`);
  result.text = lines.join('\n');
  return result;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, top] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: node bench/profile-summary.mjs <file.cpuprofile> [top]\n');
    process.exit(2);
  }
  process.stdout.write(`${summarizeProfile(file, Number(top ?? 25)).text}\n`);
}
