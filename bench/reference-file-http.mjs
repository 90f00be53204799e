/**
 * The plain alternative for video downloads: node:http streaming one file with
 * fs.createReadStream, no routing, no signature check, no Range. What the signed media link
 * (GET /media/...) does on top of this is the cost measured by the video.download scenario.
 *
 * Usage: PORT=<port> REF_FILE=<file> node bench/reference-file-http.mjs
 * Prints one line `{"ready":true,"port":N}` on stdout once it listens.
 */
import console from 'node:console';
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import process from 'node:process';

const port = Number(process.env.PORT);
if (!Number.isInteger(port) || port <= 0) throw new Error('PORT must be set to a port number');
const file = process.env.REF_FILE;
if (!file) throw new Error('REF_FILE must name the file to serve');
const size = statSync(file).size;

const server = createServer((request, response) => {
  request.resume();
  response.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(size) });
  createReadStream(file).pipe(response);
});
server.keepAliveTimeout = 65_000;

server.listen(port, '127.0.0.1', () => {
  console.log(JSON.stringify({ ready: true, port }));
});

const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
