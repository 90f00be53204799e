/**
 * The ceiling for the list endpoint: a plain node:http server that answers every request with
 * the exact bytes (status, headers, body) the real server sent for the offset-0 page. It does
 * no routing, no authentication, no database read and no serialization, so the ratio of the
 * real server to this one is the share of the hardware left after HTTP itself.
 *
 * Usage: PORT=<port> REF_RESPONSE_FILE=<file> node bench/reference-http.mjs
 * The file is JSON: {"status": 200, "headers": [[name, value], ...], "bodyBase64": "..."}, written
 * by the harness from the real server's response (header names in the case it sent them).
 * Prints one line `{"ready":true,"port":N}` on stdout once it listens.
 */
import { Buffer } from 'node:buffer';
import console from 'node:console';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import process from 'node:process';

const port = Number(process.env.PORT);
if (!Number.isInteger(port) || port <= 0) throw new Error('PORT must be set to a port number');
if (!process.env.REF_RESPONSE_FILE) throw new Error('REF_RESPONSE_FILE must name the captured response');
const captured = JSON.parse(readFileSync(process.env.REF_RESPONSE_FILE, 'utf8'));
const body = Buffer.from(captured.bodyBase64, 'base64');
// Hop-by-hop and per-response headers are node:http's own business.
const skip = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);
const headers = captured.headers.filter(([name]) => !skip.has(name.toLowerCase()));
headers.push(['content-length', String(body.length)]);

const server = createServer((request, response) => {
  // Drain any request body so keep-alive connections stay usable.
  request.resume();
  response.writeHead(captured.status, headers.flat());
  response.end(body);
});
server.keepAliveTimeout = 65_000;

server.listen(port, '127.0.0.1', () => {
  console.log(JSON.stringify({ ready: true, port }));
});

const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
