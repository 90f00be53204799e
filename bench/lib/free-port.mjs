import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * A TCP port free on the loopback interface, for a server whose URL must be known before it
 * listens (the bench's servers, the process-level test suites). Taken from below the kernel's
 * ephemeral range: a port that listen(0) handed out and we closed could go to the next
 * listen(0) of another process (a server's metrics listener, a parallel suite) before our
 * server binds it; ports below the range never do.
 */
export async function freePort() {
  const low = 10_000;
  const high = ephemeralPortsStart();
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port between ${low} and ${high}`);
}

function ephemeralPortsStart() {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
}

function canListen(port) {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
