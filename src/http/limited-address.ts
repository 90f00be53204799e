import ipaddr from 'ipaddr.js';

/**
 * The source a per-address limit counts a peer as: an IPv4 address as it is (also when it
 * arrives IPv4-mapped, `::ffff:192.0.2.1`), an IPv6 address by its /64. A network hands one
 * subscriber or one LAN a whole /64, so counting single IPv6 addresses would let one client
 * rotate through 2^64 of them where an IPv4 client has one. Anything else (a forwarded
 * address that is not one) is counted as it is.
 */
export function limitedAddress(address: string): string {
  // Without a colon it is IPv4 or no address at all: either way counted as it is, unparsed.
  if (!address.includes(':') || !ipaddr.IPv6.isValid(address)) return address;
  const ip = ipaddr.IPv6.parse(address);
  if (ip.isIPv4MappedAddress()) return ip.toIPv4Address().toString();
  return `${new ipaddr.IPv6([...ip.parts.slice(0, 4), 0, 0, 0, 0]).toString()}/64`;
}
