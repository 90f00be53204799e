import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Every scenario of a SQLite run; the harness must report each one, whatever its speed. */
const SCENARIOS = [
  'token',
  'token.signing',
  'token.refresh',
  'token.code',
  'token.oidc-provider',
  'list.offset0',
  'list.offset10k',
  'list.page401',
  'list.offset0.db10k',
  'mcp.tool.list_sessions',
  'scan',
  'reference.http',
  'transcript',
  'transcript.db10k',
];

const RATIOS = [
  'list.offset0/reference.http',
  'list.offset10k/list.offset0',
  'list.page401/list.offset0',
  'list.offset0/list.offset0.db10k',
  'token/token.oidc-provider',
  'token.signing/token.oidc-provider',
  'token.refresh/token.signing',
  'token.code/token.signing',
  'peakRssUnderListMb',
  'import.sessionsPerSec',
  'transcript/list.offset0',
  'transcript/transcript.db10k',
  'mcp.tool.list_sessions/list.offset0',
  'mcp.tool.search/search.sqlite',
  'search.sqlite.p50Ms',
  'search.sqlite.p99Ms',
  'import.transcripts.sqlite',
  'webhooks.eventsPerSec',
  'webhooks.importSlowdown',
];

/** The search group's load scenarios on SQLite (bench/lib/search-scenario.mjs). */
const SEARCH_SCENARIOS = ['search.sqlite', 'mcp.tool.search'];

interface Run {
  requests: number;
  non2xx: number;
}
interface Report {
  mode: string;
  machine: { cpuModel: string; cores: number; nodeVersion: string };
  scenarios: Record<string, { runs: Run[] }>;
  import: { sessions: number; sessionsPerSec: number | null; error?: string };
  demoGenerate: { sessions: number; sessionsPerSec: number | null; error?: string };
  export: Record<string, { sessions: number; expected: number; sessionsPerSec: number | null; exporterPeakRssMb: number; error?: string }>;
  clip: { rounds: number; ffmpegAloneMs: { median: number }; jobMs: { median: number }; error?: string };
  ratios: { id: string; pass: boolean }[];
  videoDownload: { fileMb: number; oursMbPerSec: number; plainMbPerSec: number; ratio: number };
  details: { data: { sessions: number }; scenarios: Record<string, Run> };
  transcriptCues: {
    cues: number;
    error?: string;
    parse: { ms: number };
    largestImport: { cues: number };
    adminPage: { first: Run; deep: Run };
    healthz: { alone: Run; besideOneAdmin: Run };
  };
  search: {
    cues: number;
    scenarios: Record<string, { runs: Run[] }>;
    perQueryMs: Record<string, Record<string, { matches: number; medianMs: number }>>;
    import: Record<string, { cues: number; indexedSeconds: number[]; withoutIndexSeconds: number[]; ratio: number }>;
  };
  webhooks: { events: number; delivered: number; eventsPerSec: number; importSessions: number; importSlowdownByRound: number[] };
}

/** The details-fetch scenario's runs (bench/lib/details-scenario.mjs). */
const DETAILS_SCENARIOS = ['details.list.offset0', 'details.cached', 'details.cold', 'details.invalidated', 'qxScores.cached', 'qxScores.cold', 'legacy.completed.plain', 'legacy.completed.answers', 'legacy.completed.transcripts', 'legacy.study.nps.cached', 'legacy.study.nps.cold', 'details.cold.grown'];

function runHarness(out: string): Promise<{ code: number | null; output: string }> {
  // SQLite only: the smoke run proves the harness, not the PostgreSQL store.
  const env = { ...process.env };
  delete env.DATABASE_URL;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bench/run.mjs', '--smoke', '--out', out], { cwd: ROOT, env });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

// No timed assertions: this proves that `npm run bench` works end to end, not how fast anything is.
describe('benchmark harness, smoke mode', () => {
  it('seeds, imports, drives every scenario and writes one JSON report with all of them', async () => {
    const out = mkdtempSync(join(tmpdir(), 'results-api-bench-smoke-'));
    try {
      const { code, output } = await runHarness(out);
      expect(code, output).toBe(0);

      const reports = readdirSync(out).filter((f) => f.endsWith('.json') && f !== 'latest.json');
      expect(reports).toHaveLength(1);
      const report = JSON.parse(readFileSync(join(out, reports[0]!), 'utf8')) as Report;
      expect(JSON.parse(readFileSync(join(out, 'latest.json'), 'utf8'))).toEqual(report);

      expect(report.mode).toBe('smoke');
      expect(report.machine).toMatchObject({ cpuModel: expect.any(String), cores: expect.any(Number), nodeVersion: process.version });
      expect(Object.keys(report.scenarios).sort()).toEqual([...SCENARIOS].sort());
      expect(report.clip.error, 'clip.generate').toBeUndefined();
      expect(report.clip).toMatchObject({ rounds: 1, ffmpegAloneMs: { median: expect.any(Number) }, jobMs: { median: expect.any(Number) } });
      for (const id of SCENARIOS) {
        const runs = report.scenarios[id]!.runs;
        expect(runs, id).toHaveLength(1);
        expect(runs[0]!.requests, id).toBeGreaterThan(0);
        // Every answer a 200: the pages, the tokens and the references were all set up right.
        expect(runs[0]!.non2xx, id).toBe(0);
      }
      expect(report.import.error).toBeUndefined();
      expect(report.import.sessions).toBe(2000);
      // The demo generator: 2,000 sessions with details and transcripts, counted from what it printed.
      expect(report.demoGenerate.error).toBeUndefined();
      expect(report.demoGenerate).toMatchObject({ sessions: 2000, sessionsPerSec: expect.any(Number) });
      // A test beyond the offset bound, exported completely (the harness checks every line) by cursor.
      expect(Object.keys(report.export)).toEqual(['sqlite']);
      expect(report.export.sqlite).toMatchObject({ sessions: 14_400, expected: 10_800 });
      expect(report.export.sqlite!.error).toBeUndefined();
      expect(report.export.sqlite!.exporterPeakRssMb).toBeGreaterThan(0);
      expect(report.ratios.map((r) => r.id)).toEqual(RATIOS);
      // A generated video downloaded whole (every byte counted) through the signed link and from a plain file server.
      expect(report.videoDownload.fileMb).toBeGreaterThan(1);
      expect(report.videoDownload.oursMbPerSec).toBeGreaterThan(0);
      expect(report.videoDownload.plainMbPerSec).toBeGreaterThan(0);
      expect(output).toContain('video download (a ');
      // Session details and QXscores, every answer checked to be a 200.
      expect(report.details.data.sessions).toBe(300);
      expect(Object.keys(report.details.scenarios)).toEqual(DETAILS_SCENARIOS);
      for (const [id, run] of Object.entries(report.details.scenarios)) {
        expect(run.requests, id).toBeGreaterThan(0);
        expect(run.non2xx, id).toBe(0);
      }
      // A transcript parsed, stored, and its admin page served (the pages checked cue by cue) beside /healthz.
      expect(report.transcriptCues.error).toBeUndefined();
      expect(report.transcriptCues).toMatchObject({ cues: 20_000, parse: { ms: expect.any(Number) }, largestImport: { cues: expect.any(Number) } });
      const { adminPage, healthz } = report.transcriptCues;
      for (const [id, run] of Object.entries({ first: adminPage.first, deep: adminPage.deep, ...healthz })) {
        expect(run.requests, id).toBeGreaterThan(0);
        expect(run.non2xx, id).toBe(0);
      }
      expect(output).toContain('admin transcript page (1000 stored cues)');
      // Search over the seeded cues (every query's first page checked against the generator, MCP's hits against REST's), and the import with and without the index.
      expect(report.search.cues).toBe(20_000);
      expect(Object.keys(report.search.scenarios)).toEqual(SEARCH_SCENARIOS);
      for (const id of SEARCH_SCENARIOS) {
        const runs = report.search.scenarios[id]!.runs;
        expect(runs, id).toHaveLength(1);
        expect(runs[0]!.requests, id).toBeGreaterThan(0);
        expect(runs[0]!.non2xx, id).toBe(0);
      }
      expect(Object.keys(report.search.perQueryMs)).toEqual(['sqlite']);
      expect(Object.keys(report.search.import)).toEqual(['sqlite']);
      expect(report.search.import.sqlite).toMatchObject({ cues: 3_600, indexedSeconds: [expect.any(Number)], withoutIndexSeconds: [expect.any(Number)] });
      // Every event of the outbox delivered and counted, and the import compared round by round (eight rounds after a warm-up).
      expect(report.webhooks).toMatchObject({ events: 500, delivered: 500, importSessions: 2000 });
      expect(report.webhooks.importSlowdownByRound).toHaveLength(8);
      expect(output).toContain('| ratio');
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 240_000);
});
