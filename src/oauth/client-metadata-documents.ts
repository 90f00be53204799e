import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { BlockList, isIP } from 'node:net';
import type { Clock } from '../clock.js';
import type { App, AppRepository } from '../store/apps.js';
import { redirectUriProblem } from './redirect-uris.js';
import { FAMILY_SCOPES, READ_SCOPES } from '../scope-names.js';

/** A document is read at most this often per client (a cache), and never waited for longer than this. */
export const METADATA_CACHE_MS = 3600_000;
const FETCH_TIMEOUT_MS = 5_000;
/** draft-ietf-oauth-client-id-metadata-document suggests 5 KB; a document is a few hundred bytes. */
const MAX_DOCUMENT_BYTES = 5 * 1024;
const MAX_CLIENT_ID_LENGTH = 2000;

/** Addresses a metadata document may not live on unless the operator allows it: loopback, private, link-local, and the like. */
const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) PRIVATE.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) PRIVATE.addSubnet(net, prefix, 'ipv6');

/** Whether an address is one a document may not live on; an IPv4-mapped IPv6 address is judged as its IPv4 address. */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return PRIVATE.check(mapped[1]!, 'ipv4');
  return PRIVATE.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
}

/** Whether a client_id is a client ID metadata document URL (https, with a path, no fragment, credentials or dot segments). */
export function isMetadataDocumentUrl(clientId: string): boolean {
  if (!clientId.startsWith('https://') || clientId.length > MAX_CLIENT_ID_LENGTH) return false;
  try {
    const url = new URL(clientId);
    return url.pathname !== '/' && url.hash === '' && !clientId.includes('#') && url.username === '' && url.password === '' && !/\/\.\.?(\/|$)/.test(clientId.slice(8));
  } catch {
    return false;
  }
}

export interface MetadataFetchOptions {
  allowPrivate: boolean;
  /** Extra trusted certificates (tests serve documents with their own). */
  ca?: string | Buffer;
}

/**
 * GET an https URL, refusing before a byte is sent when its host resolves to an address the
 * operator did not allow (the address checked is the one connected to, so DNS rebinding cannot
 * slip past), no redirects followed, at most MAX_DOCUMENT_BYTES within FETCH_TIMEOUT_MS.
 */
export function fetchMetadataDocument(url: string, options: MetadataFetchOptions): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const lookup: RequestOptions['lookup'] = (hostname, lookupOptions, callback) => {
      dnsLookup(hostname, { ...lookupOptions, all: true }, (err, addresses: LookupAddress[]) => {
        if (err) return callback(err, '', 4);
        const refused = addresses.find((a) => !options.allowPrivate && isPrivateAddress(a.address));
        if (refused || addresses.length === 0) return callback(new Error(`${hostname} resolves to a private address`), '', 4);
        if ((lookupOptions as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
        return callback(null, addresses[0]!.address, addresses[0]!.family);
      });
    };
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) && !options.allowPrivate && isPrivateAddress(host)) return reject(new Error(`${host} is a private address`));
    const req = httpsRequest(url, { method: 'GET', lookup, timeout: FETCH_TIMEOUT_MS, headers: { accept: 'application/json' }, ...(options.ca ? { ca: options.ca } : {}) }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return reject(new Error(`answered ${res.statusCode} (redirects are not followed)`));
      }
      if (!/^application\/([a-z.+-]*\+)?json\b/i.test(res.headers['content-type'] ?? '')) {
        res.resume();
        return reject(new Error('not application/json'));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_DOCUMENT_BYTES) return chunks.push(chunk);
        reject(new Error(`larger than ${MAX_DOCUMENT_BYTES} bytes`));
        res.destroy();
        req.destroy();
      });
      res.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch {
          reject(new Error('not valid JSON'));
        }
      });
      res.on('error', () => reject(new Error('the answer broke off')));
    });
    const deadline = setTimeout(() => req.destroy(new Error(`no answer within ${FETCH_TIMEOUT_MS} ms`)), FETCH_TIMEOUT_MS);
    req.on('timeout', () => req.destroy(new Error(`no answer within ${FETCH_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.on('close', () => clearTimeout(deadline));
    req.end();
  });
}

const USER_SCOPES = [...READ_SCOPES, ...FAMILY_SCOPES];

/** The app a client ID metadata document describes, or why it cannot be used. */
export function appOfDocument(clientId: string, document: unknown): { ok: true; app: { name: string; redirectUris: string[]; scopes: string[] } } | { ok: false; reason: string } {
  if (typeof document !== 'object' || document === null) return { ok: false, reason: 'the document is not a JSON object' };
  const d = document as Record<string, unknown>;
  if (d.client_id !== clientId) return { ok: false, reason: 'its client_id is not its own URL' };
  const uris = d.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > 10 || !uris.every((u) => typeof u === 'string')) return { ok: false, reason: 'redirect_uris must list 1 to 10 URIs' };
  for (const uri of uris as string[]) {
    const problem = redirectUriProblem(uri, 'https-or-loopback');
    if (problem) return { ok: false, reason: problem };
  }
  if (d.token_endpoint_auth_method !== undefined && d.token_endpoint_auth_method !== 'none') return { ok: false, reason: 'only public clients (token_endpoint_auth_method none) are supported' };
  const name = typeof d.client_name === 'string' && d.client_name.trim() !== '' ? d.client_name.trim().slice(0, 100) : new URL(clientId).host;
  const scopes = typeof d.scope === 'string' ? d.scope.split(' ').filter((s) => USER_SCOPES.includes(s)) : USER_SCOPES;
  return { ok: true, app: { name, redirectUris: [...new Set(uris as string[])], scopes: scopes.length > 0 ? scopes : USER_SCOPES } };
}

/**
 * The apps a client_id names: registered ones from the store, and, when the client_id is an
 * https URL (client ID metadata documents), the app its document describes, read at most
 * once an hour and kept in the store. A revoked one stays revoked whatever its document says.
 */
export class ClientDirectory {
  constructor(
    private readonly deps: { apps: AppRepository; clock: Clock; enabled: boolean; fetch: (url: string) => Promise<unknown>; log?: (message: string) => void },
  ) {}

  async find(clientId: string): Promise<App | null> {
    const known = await this.deps.apps.findApp(clientId);
    if (!this.deps.enabled || !isMetadataDocumentUrl(clientId)) return known?.origin === 'metadata' ? null : known;
    if (known && (known.revokedAt !== null || this.deps.clock.now() - (known.fetchedAt ?? 0) < METADATA_CACHE_MS)) return known;
    let document: unknown;
    try {
      document = await this.deps.fetch(clientId);
    } catch (err) {
      this.deps.log?.(`client metadata document ${clientId.slice(0, 200)} not read: ${(err as Error).message}`);
      return null;
    }
    const described = appOfDocument(clientId, document);
    if (!described.ok) {
      this.deps.log?.(`client metadata document ${clientId.slice(0, 200)} refused: ${described.reason}`);
      return null;
    }
    return this.deps.apps.saveMetadataApp({ clientId, ...described.app });
  }
}
