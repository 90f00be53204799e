/**
 * Drives a server and measures it: autocannon for the concurrent scenarios, a sequential
 * client loop for the full scan. Around every run the server's CPU time and memory are read
 * from /proc, so each result carries the server's own cost, not only what the client saw.
 */
import { Buffer } from 'node:buffer';
import { Agent, request as httpRequest } from 'node:http';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { cpuSeconds, cpuSecondsBetween, memoryMb, resetPeakRss } from './processes.mjs';

const round = (value, digits = 0) => (Number.isFinite(value) ? Number(value.toFixed(digits)) : null);

/** What every run reports, whatever drove it. */
function summarize({ requests, ok, seconds, p50, p99, cpu, memory, extra = {} }) {
  return {
    requests,
    non2xx: requests - ok,
    seconds: round(seconds, 2),
    reqPerSec: round(requests / seconds),
    p50Ms: round(p50, 2),
    p99Ms: round(p99, 2),
    serverCpuUsPerReq: requests > 0 ? round((cpu * 1e6) / requests, 1) : null,
    serverCpuPercent: round((cpu / seconds) * 100),
    serverProcesses: memory.processes,
    serverRssMb: round(memory.rss, 1),
    serverPeakRssMb: round(memory.peak, 1),
    serverPeakRssTotalMb: round(memory.peakTotal, 1),
    ...extra,
  };
}

/**
 * One autocannon run against `server` ({ pid, url }). `peakRss` restarts the server's peak
 * RSS count first, so the peak reported is the peak under this load. CPU and memory cover the
 * server's whole process tree (a cluster's primary and workers).
 */
export async function runAutocannon(server, request, { connections, seconds, peakRss = false }) {
  if (peakRss) resetPeakRss(server.pid);
  const cpuBefore = cpuSeconds(server.pid);
  const result = await autocannon({
    url: server.url + request.path,
    method: request.method ?? 'GET',
    headers: request.headers ?? {},
    body: request.body,
    ...(request.requests ? { requests: request.requests } : {}),
    connections,
    duration: seconds,
    timeout: 10,
  });
  const cpu = cpuSecondsBetween(cpuBefore, cpuSeconds(server.pid));
  const requests = result.requests.total;
  return summarize({
    requests,
    ok: result['2xx'],
    seconds: result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpu,
    memory: memoryMb(server.pid),
    extra: { errors: result.errors, timeouts: result.timeouts },
  });
}

/** The median of numbers (the mean of the middle two when their count is even); null for none. */
export function median(values) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const percentile = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] : NaN);

function get(agent, url, headers) {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { agent, headers }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.setTimeout(10_000, () => req.destroy(new Error(`timed out: GET ${url}`)));
    req.on('error', reject);
    req.end();
  });
}

/**
 * A pipeline reading a whole test: one client, one keep-alive connection, every page in turn
 * (limit/offset), each page parsed and checked, repeated until `seconds` have passed (the
 * current scan is finished). Reports pages/s and sessions/s.
 */
export async function runScan(server, { path, token, total, limit, seconds, peakRss = false }) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const headers = { authorization: `Bearer ${token}` };
  const latencies = [];
  let pages = 0;
  let ok = 0;
  let sessions = 0;
  let scans = 0;
  if (peakRss) resetPeakRss(server.pid);
  const cpuBefore = cpuSeconds(server.pid);
  const started = performance.now();
  const deadline = started + seconds * 1000;
  try {
    do {
      for (let offset = 0; offset < total; offset += limit) {
        const t0 = performance.now();
        const res = await get(agent, `${server.url}${path}&limit=${limit}&offset=${offset}`, headers);
        latencies.push(performance.now() - t0);
        pages++;
        if (res.status !== 200) continue;
        const got = JSON.parse(res.body).sessions.length;
        const expected = Math.min(limit, total - offset);
        if (got !== expected) throw new Error(`scan: page at offset ${offset} held ${got} sessions, expected ${expected}`);
        ok++;
        sessions += got;
      }
      scans++;
    } while (performance.now() < deadline);
  } finally {
    agent.destroy();
  }
  const elapsed = (performance.now() - started) / 1000;
  const cpu = cpuSecondsBetween(cpuBefore, cpuSeconds(server.pid));
  latencies.sort((a, b) => a - b);
  return summarize({
    requests: pages,
    ok,
    seconds: elapsed,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    cpu,
    memory: memoryMb(server.pid),
    extra: { scans, sessions, sessionsPerSec: round(sessions / elapsed), pageSize: limit },
  });
}
