/**
 * What a run concludes: the ratios against their targets, the tables printed at the end, the
 * JSON written under bench/results/, and the machine it ran on (a ratio means little without it).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { clipLine } from './clip-scenario.mjs';
import { median } from './load.mjs';
import { searchLines } from './search-scenario.mjs';
import { transcriptCuesLines } from './transcript-cues-scenario.mjs';

/** The issue's targets. `higher`: the value must be at least the target; `lower`: at most. */
export const TARGETS = [
  { id: 'list.offset0/reference.http', title: 'list offset 0 / plain node:http, same bytes', target: 0.5, better: 'higher' },
  { id: 'list.offset10k/list.offset0', title: 'list offset 10,000 / list offset 0', target: 0.8, better: 'higher' },
  { id: 'list.page401/list.offset0', title: 'list pageNumber 401 / list offset 0', target: 0.8, better: 'higher' },
  { id: 'list.offset0/list.offset0.db10k', title: 'list on 1M-session db / on 10k-session db', target: 0.9, better: 'higher' },
  { id: 'token/token.oidc-provider', title: 'token endpoint / oidc-provider (RS256 JWT)', target: 2.0, better: 'higher' },
  // Not a target: what the endpoint costs when every request is signed (TOKEN_REUSE_SECONDS=0).
  { id: 'token.signing/token.oidc-provider', title: 'token endpoint, signing every request / oidc-provider', target: null, better: 'higher' },
  // Issue 34: an app's refresh (rotation: one write transaction, then a signature) costs no more per request than client credentials
  // signing every request: server CPU µs per request (medians of the runs), which a machine shared with other work does not skew as it does req/s.
  { id: 'token.refresh/token.signing', title: 'refresh_token grant / client credentials, both signing every request (CPU µs/req)', metric: 'cpu', target: 1.0, better: 'lower' },
  // Not a target: a code exchange (a grant and its refresh token written, then a signature) against the same client credentials.
  { id: 'token.code/token.signing', title: 'authorization_code grant / client credentials, both signing every request', target: null, better: 'higher' },
  { id: 'peakRssUnderListMb', title: 'peak RSS of a server process under list load (MB)', target: 150, better: 'lower' },
  { id: 'import.sessionsPerSec', title: 'sessions import into SQLite (sessions/s)', target: 100_000, better: 'higher' },
  // Not a target: a transcript (~40 KB of text, never cached) against the plain alternative on the same server, a cached list page.
  { id: 'transcript/list.offset0', title: 'transcript (WebVTT, uncached) / list page offset 0 (cached)', target: null, better: 'higher' },
  { id: 'transcript/transcript.db10k', title: 'transcript on 1M-session db / on 10k-session db', target: 0.9, better: 'higher' },
  // Issue 32: a tool call costs at most 1.5x the REST call it wraps (`metric: 'cpu'`: the medians of the runs' server CPU µs per request).
  { id: 'mcp.tool.list_sessions/list.offset0', title: 'MCP list_sessions / the REST list page it wraps (CPU µs/req)', metric: 'cpu', target: 1.5, better: 'lower' },
  { id: 'mcp.tool.search/search.sqlite', title: 'MCP search / GET /api/v2/search it wraps (CPU µs/req)', target: 1.5, better: 'lower' },
  // Search over the 1M-cue database (bench/lib/search-scenario.mjs), one client: medians over the runs of p50 and p99.
  { id: 'search.sqlite.p50Ms', title: 'search on SQLite, p50 latency, one client (ms)', target: 20, better: 'lower' },
  { id: 'search.sqlite.p99Ms', title: 'search on SQLite, p99 latency, one client (ms)', target: 100, better: 'lower' },
  { id: 'import.transcripts.sqlite', title: 'transcript import into SQLite, with the search index / without (time)', target: 1.3, better: 'lower' },
  // Issue 35 (bench/lib/webhooks-scenario.mjs): events delivered to a local receiver per second, and what a subscription adds to an import.
  { id: 'webhooks.eventsPerSec', title: 'webhook delivery on SQLite, to a local receiver (events/s)', target: 2_000, better: 'higher' },
  { id: 'webhooks.importSlowdown', title: 'session import into SQLite, with a subscription / without (time, median of rounds)', target: 1.1, better: 'lower' },
  // The same ratios on PostgreSQL, when DATABASE_URL names one.
  { id: 'pg.list.offset10k/pg.list.offset0', title: 'PostgreSQL: list offset 10,000 / offset 0', target: 0.8, better: 'higher', optional: true },
  { id: 'pg.list.page401/pg.list.offset0', title: 'PostgreSQL: list pageNumber 401 / offset 0', target: 0.8, better: 'higher', optional: true },
  { id: 'pg.list.offset0/pg.list.offset0.db10k', title: 'PostgreSQL: list on 1M db / on 10k db', target: 0.9, better: 'higher', optional: true },
  { id: 'pg.mcp.tool.list_sessions/pg.list.offset0', title: 'PostgreSQL: MCP list_sessions / the REST list page (CPU µs/req)', metric: 'cpu', target: 1.5, better: 'lower', optional: true },
  { id: 'search.pg.p50Ms', title: 'search on PostgreSQL, p50 latency, one client (ms)', target: 20, better: 'lower', optional: true },
  { id: 'search.pg.p99Ms', title: 'search on PostgreSQL, p99 latency, one client (ms)', target: 100, better: 'lower', optional: true },
  { id: 'import.transcripts.pg', title: 'transcript import into PostgreSQL, with the search index / without (time)', target: 1.3, better: 'lower', optional: true },
  { id: 'pg.webhooks.eventsPerSec', title: 'webhook delivery on PostgreSQL, to a local receiver (events/s)', target: 2_000, better: 'higher', optional: true },
  { id: 'pg.webhooks.importSlowdown', title: 'session import into PostgreSQL, with a subscription / without (time, median of rounds)', target: 1.1, better: 'lower', optional: true },
];

/** The scenarios whose runs make up "the list load" for peak RSS. */
const LIST_LOAD = ['list.offset0', 'list.offset10k', 'list.page401', 'scan'];

/**
 * The server's peak RSS under the list load: of its largest process (what the target is
 * about: caches bounded whatever the data), and summed over its processes (a cluster).
 */
export function peakRssUnderList(scenarios) {
  const runs = LIST_LOAD.flatMap((id) => scenarios[id]?.runs ?? []);
  if (runs.length === 0) return null;
  return {
    largestProcessMb: Math.max(...runs.map((r) => r.serverPeakRssMb)),
    allProcessesMb: Math.max(...runs.map((r) => r.serverPeakRssTotalMb)),
  };
}

const cleanRuns = (scenario) => (scenario?.runs ?? []).filter((r) => r.non2xx === 0 && !r.errors && !r.timeouts);

/** The run a scenario is judged by: the fastest of its runs that got only 2xx answers. */
export function bestRun(scenario) {
  return cleanRuns(scenario).reduce((best, r) => (best === null || r.reqPerSec > best.reqPerSec ? r : best), null);
}

/** The median over a scenario's clean runs of its server CPU µs per request. */
export const medianCpuUsPerReq = (scenario) => median(cleanRuns(scenario).map((r) => r.serverCpuUsPerReq).filter((v) => v !== null));

/**
 * Each target with its value and verdict. A ratio of two scenarios compares their best runs.
 * With `partial`, only the targets this run could measure are listed.
 */
export function computeRatios(report, { partial }) {
  const { scenarios } = report;
  const measured = {
    peakRssUnderListMb: peakRssUnderList(scenarios)?.largestProcessMb ?? null,
    'import.sessionsPerSec': report.import?.sessionsPerSec ?? null,
    'webhooks.eventsPerSec': report.webhooks?.eventsPerSec ?? null,
    'webhooks.importSlowdown': report.webhooks?.importSlowdown ?? null,
    'pg.webhooks.eventsPerSec': report.pgWebhooks?.eventsPerSec ?? null,
    'pg.webhooks.importSlowdown': report.pgWebhooks?.importSlowdown ?? null,
    // The search group reports its own values (ratios, latencies), keyed by their target's id.
    ...report.search?.values,
  };
  const rate = (id) => bestRun(scenarios[id])?.reqPerSec ?? null;
  const valueOf = ({ id, metric }) => {
    if (id in measured) return measured[id];
    const [a, b] = id.split('/');
    if (!(a in scenarios) || !(b in scenarios)) return undefined;
    const [top, bottom] = metric === 'cpu' ? [medianCpuUsPerReq(scenarios[a]), medianCpuUsPerReq(scenarios[b])] : [rate(a), rate(b)];
    return top === null || !bottom ? null : Number((top / bottom).toFixed(3));
  };
  return TARGETS.flatMap((t) => {
    const value = valueOf(t) ?? null;
    if (value === null && (t.optional || partial)) return [];
    const pass = t.target === null || (value !== null && (t.better === 'higher' ? value >= t.target : value <= t.target));
    return [{ id: t.id, title: t.title, value, target: t.target, better: t.better, pass }];
  });
}

export function machineInfo() {
  const cpu = cpus();
  return {
    cpuModel: cpu[0]?.model ?? 'unknown',
    cores: cpu.length,
    memoryGb: Number((totalmem() / 1024 ** 3).toFixed(1)),
    freeMemoryGb: Number((freemem() / 1024 ** 3).toFixed(1)),
    nodeVersion: process.version,
    platform: `${process.platform} ${release()} ${process.arch}`,
    loadAverage: loadavg().map((l) => Number(l.toFixed(2))),
  };
}

/** The commit measured, and whether the working tree differed from it. */
export function gitInfo(cwd) {
  const git = (...args) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    return { commit: git('rev-parse', 'HEAD'), dirty: git('status', '--porcelain') !== '' };
  } catch {
    return null;
  }
}

/** Writes `<startedAt>.json` (and latest.json unless partial); returns the path written. */
export function writeReport(report, outDir, { partial }) {
  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, `${report.startedAt.replace(/[:.]/g, '-')}${partial ? '-partial' : ''}.json`);
  const json = `${JSON.stringify(report, null, 2)}\n`;
  writeFileSync(file, json);
  if (!partial) writeFileSync(join(outDir, 'latest.json'), json);
  return file;
}

const num = (v, digits = 0) =>
  v === null || v === undefined
    ? '-'
    : Number(v).toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

function scenarioRow(id, s) {
  const best = bestRun(s);
  const runs = s.runs.map((r) => `${num(r.reqPerSec)}${r.non2xx ? ` (${num(r.non2xx)} non-2xx)` : ''}`).join(', ');
  const rate = best ? num(best.reqPerSec) + (s.kind === 'scan' ? ` (${num(best.sessionsPerSec)} sessions/s)` : '') : 'no clean run';
  return [
    id,
    s.server,
    rate,
    runs,
    num(best?.p50Ms, 2),
    num(best?.p99Ms, 2),
    num(best?.serverCpuUsPerReq, 1),
    num(best?.serverCpuPercent),
    num(best?.serverPeakRssMb, 1) + (best?.serverProcesses > 1 ? ` (${num(best.serverPeakRssTotalMb)} in ${best.serverProcesses})` : ''),
  ];
}

function importLine(i) {
  const outcome = i.sessionsPerSec === null ? i.error : `${num(i.sessionsPerSec)} sessions/s`;
  return (
    `sessions import: ${num(i.sessions)} sessions in ${num(i.seconds, 1)} s = ${outcome} ` +
    `(${i.method}; file ${num(i.fileMb)} MB; importer peak RSS ${num(i.peakRssMb)} MB)`
  );
}

function demoGenerateLine(d) {
  if (d.sessionsPerSec === null) return `demo --sessions: ${d.error}`;
  const plain = d.plainImportSessionsPerSec ? `; bare sessions import ${num(d.plainImportSessionsPerSec)} sessions/s` : '';
  return (
    `demo --sessions: ${num(d.sessions)} sessions with details, transcripts and a video each (${num(d.videos ?? 0)} shared) in ${num(d.seconds - d.demoAloneSeconds, 1)} s = ` +
    `${num(d.sessionsPerSec)} sessions/s, fixed costs ${num(d.demoAloneSeconds, 1)} s (${d.method}; peak RSS ${num(d.peakRssMb)} MB${plain})`
  );
}

function videoDownloadLine(v) {
  return (
    `video download (a ${num(v.fileMb, 1)} MB video): ${num(v.oursMbPerSec, 1)} MB/s through the signed link vs ${num(v.plainMbPerSec, 1)} MB/s ` +
    `from a plain file server (${num(v.ratio, 3)}×); four clients at once ${num(v.oursFourClientsMbPerSec, 1)} vs ${num(v.plainFourClientsMbPerSec, 1)} MB/s ` +
    `(${num(v.ratioFourClients, 3)}×); import ${num(v.importSeconds, 1)} s (${v.method})`
  );
}

function exportLine(store, e) {
  const outcome = e.sessionsPerSec === null ? e.error : `${num(e.sessionsPerSec)} sessions/s`;
  return (
    `sessions export (${store}): a ${num(e.sessions)}-session test, its ${num(e.expected)} completed sessions in ${num(e.seconds, 1)} s = ` +
    `${outcome} (${e.method}; exporter peak RSS ${num(e.exporterPeakRssMb)} MB, server ${num(e.serverPeakRssMb)} MB)`
  );
}

function seedLine(name, d) {
  return (
    `seed ${name}: ${num(d.sessions)} sessions over ${num(d.tests)} test${d.tests === 1 ? '' : 's'} ` +
    `in ${num(d.seedSeconds, 1)} s (${num(d.seedSessionsPerSecond)} sessions/s; ${d.method})`
  );
}

/** The details-fetch scenario (bench/lib/details-scenario.mjs): its own table. */
function detailsLines({ data, scenarios }) {
  return [
    `session details: a ${num(data.sessions)}-session test, ${data.tasksPerSession} tasks a session, ${num(data.detailsBodyBytes)} bytes a body; grown to ${num(data.grownTo)} detailed sessions`,
    ...markdownTable(
      ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'non-2xx'],
      Object.entries(scenarios).map(([id, s]) => [id, num(s.reqPerSec), num(s.p50Ms, 1), num(s.p99Ms, 1), s.serverCpuUsPerReq === null ? '-' : num(s.serverCpuUsPerReq), num(s.non2xx)]),
      [false, true, true, true, true, true],
    ),
  ];
}

/** The tables a run prints, in markdown so they paste into docs as they are. */
export function formatTables(report) {
  const m = report.machine;
  const lines = [
    `results-api benchmark (${report.mode}) · ${m.cpuModel} × ${m.cores} · Node ${m.nodeVersion} · ` +
      `${report.startedAt} · load average ${m.loadAverage.join(' ')} at start, ${m.loadAverageAtEnd?.join(' ')} at end`,
    '',
    ...markdownTable(
      ['scenario', 'server', 'req/s (best)', 'runs req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'CPU %', 'peak RSS MB'],
      Object.entries(report.scenarios).map(([id, s]) => scenarioRow(id, s)),
      [false, false, true, false, true, true, true, true, true],
    ),
    '',
  ];
  if (report.import) lines.push(importLine(report.import));
  if (report.demoGenerate) lines.push(demoGenerateLine(report.demoGenerate));
  if (report.videoDownload) lines.push(videoDownloadLine(report.videoDownload));
  for (const [store, e] of Object.entries(report.export ?? {})) lines.push(exportLine(store, e));
  if (report.clip) lines.push(clipLine(report.clip));
  if (report.transcriptCues) lines.push(...transcriptCuesLines(report.transcriptCues));
  if (report.search) lines.push(...searchLines(report.search));
  for (const [name, d] of Object.entries(report.data)) lines.push(seedLine(name, d));
  if (report.details) lines.push('', ...detailsLines(report.details));
  const ratioRows = report.ratios.map((r) => [
    r.title,
    r.value === null ? '-' : num(r.value, r.target >= 100 ? 0 : 3),
    r.target === null ? '(none)' : `${r.better === 'higher' ? '>=' : '<='} ${num(r.target, r.target >= 100 ? 0 : 1)}`,
    r.target === null ? 'info' : r.pass ? 'PASS' : 'FAIL',
  ]);
  lines.push('', ...markdownTable(['ratio', 'value', 'target', 'result'], ratioRows, [false, true, true, false]));
  return lines.join('\n');
}

function markdownTable(header, rows, rightAligned) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const cell = (text, i) => (rightAligned[i] ? String(text).padStart(widths[i]) : String(text).padEnd(widths[i]));
  const line = (cells) => `| ${cells.map(cell).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (rightAligned[i] ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  return [line(header), rule, ...rows.map(line)];
}
