import { CliError } from './output.js';

/** Standard input, whole, up to `maxBytes` (a secret or a password, never a file). */
export async function readStdin(maxBytes = 64 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw new CliError(`stdin is longer than ${maxBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
