import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  /** Lower-cased names; a repeated header keeps its last value. */
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends exactly the given bytes over a fresh TCP connection and reads the answer until the
 * server closes it (so the request must say `Connection: close`, as httpRequest's do). For
 * requests no HTTP client library would send: control characters, non-UTF-8 bytes, headers
 * over Node's limit, malformed framing.
 */
export function rawRequest(baseUrl: string, request: Buffer | string): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  const bytes = typeof request === 'string' ? Buffer.from(request, 'latin1') : request;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    // Written, not ended: Node aborts a request whose client half-closes before the answer.
    // Every request here says `Connection: close`, so the server closes when it has answered.
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    const finish = () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return reject(new Error(`no HTTP response (got ${JSON.stringify(text.slice(0, 200))})`));
      const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body: text.slice(end + 4) });
    };
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('end', finish);
    // The server may close while the request is still being written (e.g. after 431); what it
    // answered before closing is still the answer.
    socket.on('error', () => (chunks.length > 0 ? finish() : reject(new Error('connection failed with no response'))));
    socket.setTimeout(10_000, () => socket.destroy(new Error('timed out')));
  });
}

/** One HTTP/1.1 request's bytes; header values and body are written as latin1 (byte = char). */
export function httpRequest(
  method: string,
  target: string,
  headers: [string, string][] = [],
  body?: string,
): string {
  const lines = [`${method} ${target} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  if (body !== undefined && !headers.some(([n]) => /^(content-length|transfer-encoding)$/i.test(n))) {
    lines.push(`Content-Length: ${Buffer.byteLength(body, 'latin1')}`);
  }
  return `${lines.join('\r\n')}\r\n\r\n${body ?? ''}`;
}
