import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Config } from '../config.js';

/**
 * Where webhooks may be sent (server-side request forgery protection, in one place): https
 * targets whose every address is public unicast. An address is checked when a subscription
 * names it and again, after DNS resolution, when a delivery connects: the connection goes to
 * the address that was checked (the lookup below is the connection's own), so a name that
 * resolves elsewhere a moment later (DNS rebinding) gains nothing.
 */
export interface TargetPolicy {
  /** WEBHOOKS_ALLOW_HTTP: plain http targets too. */
  readonly allowHttp: boolean;
  /** WEBHOOKS_ALLOW_PRIVATE_TARGETS: any address, and http (tests, local use). */
  readonly allowPrivate: boolean;
  /** How names are resolved (tests substitute their own); dns.lookup otherwise. */
  readonly lookup?: NameLookup;
}

/** The target policy the operator configured. */
export function targetPolicyOf(config: Pick<Config, 'webhooks'>): TargetPolicy {
  return { allowHttp: config.webhooks.allowHttp, allowPrivate: config.webhooks.allowPrivateTargets };
}

/** Resolves a name to every address it has. */
export type NameLookup = (hostname: string) => Promise<LookupAddress[]>;

export type TargetCheck = { ok: true; url: URL } | { ok: false; reason: string };

export const MAX_TARGET_URL_LENGTH = 2048;

const systemLookup: NameLookup = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

/** Why `address` may not be a target, or null when it may (public unicast). */
export function forbiddenAddress(address: string): string | null {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    // An IPv4 address written as IPv6 (::ffff:a.b.c.d, or NAT64's 64:ff9b::/96) is judged as that IPv4 address.
    if (v6.isIPv4MappedAddress()) ip = v6.toIPv4Address();
    else if (v6.range() === 'rfc6052') ip = new ipaddr.IPv4(v6.toByteArray().slice(12));
  }
  const range = ip.range();
  return range === 'unicast' ? null : `${address} is a ${range} address`;
}

/**
 * Checks a target URL as written: its scheme, no credentials in it, and a host that is not
 * a private, loopback, link-local, metadata or other non-public address in any spelling (the
 * URL parser turns decimal, octal and hex IPv4 forms into dotted quads; IPv6 comes bracketed).
 */
export function checkTargetUrl(raw: string, policy: TargetPolicy): TargetCheck {
  if (raw.length > MAX_TARGET_URL_LENGTH) return { ok: false, reason: `the url is longer than ${MAX_TARGET_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'the url is not an absolute URL' };
  }
  const httpAllowed = policy.allowHttp || policy.allowPrivate;
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && httpAllowed)) {
    return { ok: false, reason: httpAllowed ? 'the url must be http or https' : 'the url must be https' };
  }
  if (url.username || url.password) return { ok: false, reason: 'the url must not carry a user name or password' };
  if (url.hash) return { ok: false, reason: 'the url must not carry a fragment' };
  if (policy.allowPrivate) return { ok: true, url };
  const host = hostOf(url);
  if (isIP(host)) {
    const why = forbiddenAddress(host);
    return why ? { ok: false, reason: `the url's host is not a public address (${why})` } : { ok: true, url };
  }
  if (host === 'localhost' || host.endsWith('.localhost') || !host.includes('.')) {
    return { ok: false, reason: `the url's host ${host} is not a public name` };
  }
  return { ok: true, url };
}

/** The URL's host without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * The addresses `hostname` resolves to, refused (with the reason) when any of them is not
 * public: what a subscription is checked with, and what a delivery connects to.
 */
export async function resolveTarget(hostname: string, policy: TargetPolicy): Promise<LookupAddress[]> {
  const addresses = isIP(hostname)
    ? [{ address: hostname, family: isIP(hostname) }]
    : await (policy.lookup ?? systemLookup)(hostname).catch((err: NodeJS.ErrnoException) => {
        throw new TargetRefusedError(`${hostname} does not resolve (${err.code ?? err.message})`, true);
      });
  if (addresses.length === 0) throw new TargetRefusedError(`${hostname} does not resolve`, true);
  if (!policy.allowPrivate) {
    for (const { address } of addresses) {
      const why = forbiddenAddress(address);
      if (why) throw new TargetRefusedError(`${hostname} resolves to a non-public address (${why})`);
    }
  }
  return addresses;
}

/** A target refused by the policy; its message says why (never the response of anything). */
export class TargetRefusedError extends Error {
  override name = 'TargetRefusedError';
  constructor(
    message: string,
    /** The name did not resolve (rather than resolving somewhere refused). */
    readonly unresolved = false,
  ) {
    super(message);
  }
}

type LookupCallback = (err: Error | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/tls.connect that resolves through resolveTarget: the socket connects
 * only to addresses just checked. Answers in both of Node's shapes (one address, or all of
 * them when the connection tries each family).
 */
export function checkedLookup(policy: TargetPolicy) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    resolveTarget(hostname, policy).then(
      (addresses) => (options.all ? callback(null, addresses) : callback(null, addresses[0]!.address, addresses[0]!.family)),
      (err: Error) => callback(err, ''),
    );
  };
}
