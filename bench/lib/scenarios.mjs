/**
 * The scenarios: what each one asks of which server, and how a round of them runs. Ids are
 * stable (the JSON, the ratios and the smoke test use them).
 */
import { completedCount } from './data.mjs';
import { runAutocannon, runScan } from './load.mjs';
import { BENCH_CODE_VERIFIER, BENCH_REDIRECT_URI } from './seed.mjs';
import { codeRequest, listPath, ourTokenPath, refreshRequest, tokenRequest } from './servers.mjs';
import { transcriptPath } from './transcript.mjs';
import { mcpToolRequest } from './mcp.mjs';

/** Every scenario of a run; `server` names the process it drives, `rss` marks the list load. */
export function scenarioCatalog(p, t) {
  const n = (value) => value?.toLocaleString('en-US');
  const deepPage = p.deepOffset / 25 + 1;
  const list = (prefix, db, db10k) => {
    const page = (query) => () => ({ path: listPath(t[db].testIds[0], query) });
    return [
      {
        id: `${prefix}list.offset0`,
        server: db,
        rss: !prefix,
        title: `list page, limit 25, offset 0, ${n(t[db]?.counts[0])}-session test`,
        request: page('limit=25&offset=0'),
      },
      {
        id: `${prefix}list.offset10k`,
        server: db,
        rss: !prefix,
        title: `list page, limit 25, offset ${n(p.deepOffset)}`,
        request: page(`limit=25&offset=${p.deepOffset}`),
      },
      {
        id: `${prefix}list.page401`,
        server: db,
        rss: !prefix,
        title: `list page, rowsPerPage 25, pageNumber ${deepPage}`,
        request: page(`rowsPerPage=25&pageNumber=${deepPage}`),
      },
      {
        id: `${prefix}list.offset0.db10k`,
        server: db10k,
        title: `list page, limit 25, offset 0, on the ${n(t[db10k]?.counts[0])}-session database`,
        request: () => ({ path: listPath(t[db10k].testIds[0], 'limit=25&offset=0') }),
      },
      {
        // Issue 32: the MCP tool wrapping list.offset0's REST call, compared by CPU per request.
        id: `${prefix}mcp.tool.list_sessions`,
        server: `${db}-mcp`,
        auth: 'mcp',
        title: `MCP tools/call list_sessions (limit 25, first page): the tool wrapping list.offset0, ${n(t[db]?.counts[0])}-session test`,
        request: () => mcpToolRequest('list_sessions', { testId: t[db].testIds[0], limit: 25 }),
      },
      {
        id: `${prefix}transcript`,
        server: db,
        title: `a session's transcript (WebVTT, ~40 KB, read from the database on every request), ${n(t[db]?.counts[0])}-session test`,
        request: () => ({ path: transcriptPath(t[db].transcriptSessionId) }),
      },
      {
        id: `${prefix}transcript.db10k`,
        server: db10k,
        title: `the same transcript request on the ${n(t[db10k]?.counts[0])}-session database`,
        request: () => ({ path: transcriptPath(t[db10k].transcriptSessionId) }),
      },
      {
        id: `${prefix}scan`,
        server: db,
        kind: 'scan',
        rss: !prefix,
        title: `full scan of a ${n(t[db]?.counts[1])}-session test (${n(completedCount(t[db]?.counts[1] ?? 0))} completed), limit ${p.scanLimit}, one client`,
      },
    ];
  };
  return [
    {
      id: 'token',
      server: 'sqlite',
      title: 'token endpoint: RS256 JWT, form B, client_secret_post (defaults: a repeat within 30 s gets the same token)',
      request: () => tokenRequest(ourTokenPath, t.credential),
    },
    {
      id: 'token.signing',
      server: 'sqlite-signing',
      title: 'the same with TOKEN_REUSE_SECONDS=0: every request signs a new token',
      request: () => tokenRequest(ourTokenPath, t.credential),
    },
    {
      id: 'token.refresh',
      server: 'sqlite',
      title: 'token endpoint: refresh_token grant of a confidential app (HTTP Basic): rotates the refresh token and signs an access token every request',
      request: () => refreshRequest(ourTokenPath, t.credential.app, t.sqlite.refreshTokens, p.connections),
    },
    {
      id: 'token.code',
      server: 'sqlite',
      title: 'token endpoint: authorization_code grant of a confidential app (HTTP Basic, PKCE S256): each request exchanges a new code, creating a grant and its refresh token, and signs an access token',
      request: () => codeRequest(ourTokenPath, t.credential.app, t.sqlite.codes, { redirectUri: BENCH_REDIRECT_URI, codeVerifier: BENCH_CODE_VERIFIER }),
    },
    {
      id: 'token.oidc-provider',
      server: 'oidc',
      title: 'oidc-provider 9, client_credentials, RS256 JWT (peer)',
      request: () => tokenRequest('/token', t.credential),
    },
    ...list('', 'sqlite', 'sqlite10k'),
    {
      id: 'reference.http',
      server: 'reference',
      title: 'plain node:http answering the bytes of list.offset0 (ceiling)',
      request: () => ({ path: '/' }),
    },
    ...(t.postgres ? list('pg.', 'pg', 'pg10k') : []),
  ];
}

function runOnce(scenario, server, p, seconds) {
  if (scenario.kind === 'scan') {
    return runScan(server, {
      path: `/api/v2/sessionResults?testId=${server.target.testIds[1]}`,
      token: server.token,
      total: completedCount(server.target.counts[1]),
      limit: p.scanLimit,
      seconds,
      peakRss: scenario.rss,
    });
  }
  const request = scenario.request();
  if (scenario.auth === 'mcp') request.headers = { ...request.headers, authorization: `Bearer ${server.mcpToken}` };
  else if (server.token && !request.body) request.headers = { authorization: `Bearer ${server.token}` };
  return runAutocannon(server, request, { connections: p.connections, seconds, peakRss: scenario.rss });
}

/**
 * Runs every scenario `p.runs` times, round-robin: a scenario's runs are minutes apart, so a
 * burst of noise from other work on the machine hits one of its runs, not all. The first run
 * of each scenario follows its warm-up. Returns { id: { title, server, kind, runs } }.
 */
export async function runScenarios(catalog, servers, p, log) {
  const results = {};
  for (const s of catalog) {
    results[s.id] = { title: s.title, server: servers[s.server].name, kind: s.kind ?? 'autocannon', runs: [] };
  }
  for (let round = 1; round <= p.runs; round++) {
    for (const s of catalog) {
      const server = servers[s.server];
      if (round === 1 && p.warmupSeconds > 0) await runOnce(s, server, p, p.warmupSeconds);
      const run = await runOnce(s, server, p, p.seconds);
      results[s.id].runs.push(run);
      const non2xx = run.non2xx ? `, ${run.non2xx} non-2xx` : '';
      log(`${s.id} run ${round}: ${run.reqPerSec} req/s, p99 ${run.p99Ms} ms, ${run.serverCpuUsPerReq} µs CPU/req${non2xx}`);
    }
  }
  return results;
}
