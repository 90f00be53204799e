/**
 * MCP requests as a client sends them after `initialize` (Streamable HTTP, stateless JSON
 * mode, issue 32): one JSON-RPC `tools/call` per POST /mcp, with a token bound to the MCP
 * resource (RFC 8707 `resource` = `<server>/mcp`).
 */
import { rawRequest } from './servers.mjs';

export const MCP_PROTOCOL_VERSION = '2025-11-25';
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MCP_PROTOCOL_VERSION };

/** The RFC 8707 resource of a server's MCP endpoint: what its tokens must be bound to. */
export const mcpResource = (server) => `${server.url}/mcp`;

/** The body of a `tools/call` of `name` with `args`. */
export const toolCallBody = (name, args, id = 1) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

/** A POST /mcp calling one tool, for autocannon (the Bearer header is added per server). */
export const mcpToolRequest = (name, args) => ({ method: 'POST', path: '/mcp', headers: { ...HEADERS }, body: toolCallBody(name, args) });

/** Calls a tool once; returns its structuredContent, or throws (naming the server) on anything but a successful call. */
export async function callTool(server, token, name, args) {
  const res = await rawRequest(`${server.url}/mcp`, { method: 'POST', headers: { ...HEADERS, authorization: `Bearer ${token}` }, body: toolCallBody(name, args) });
  const text = res.body.toString('utf8');
  if (res.status !== 200) throw new Error(`${server.name}: tools/call ${name} answered ${res.status}: ${text.slice(0, 300)}`);
  const message = JSON.parse(text);
  if (message.error || message.result?.isError) throw new Error(`${server.name}: tools/call ${name} failed: ${text.slice(0, 300)}`);
  return message.result.structuredContent;
}
