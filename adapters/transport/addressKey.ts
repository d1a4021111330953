// The key the per-address connection cap counts by (spec: wire-protocol.txt "Handshake": 16 per address;
// reliability-tests §8 item 6): an IPv4-mapped IPv6 address is its IPv4, an IPv6 address is its /64, so a
// dual-stack listener counts 127.0.0.2 and ::ffff:127.0.0.2 as one and one host cannot escape with its /64.
import { isIPv4, isIPv6 } from 'node:net';

/** Per-address cap key of a remote address as Node reports it; unparsable input keys as itself. */
export function addressKey(remoteAddress: string): string {
  if (isIPv4(remoteAddress)) return remoteAddress;
  const zoneAt = remoteAddress.indexOf('%');
  const address = zoneAt < 0 ? remoteAddress : remoteAddress.slice(0, zoneAt);
  const zone = zoneAt < 0 ? '' : remoteAddress.slice(zoneAt);
  if (!isIPv6(address)) return remoteAddress;
  const groups = expandIPv6(address);
  if (groups === undefined) return remoteAddress;
  // ::ffff:a.b.c.d (IPv4-mapped) is the IPv4 peer of a dual-stack socket.
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const high = groups[6]!;
    const low = groups[7]!;
    return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  }
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(':')}::/64${zone}`;
}

/** The eight 16-bit groups of a syntactically valid IPv6 address (no zone), or undefined. */
export function expandIPv6(address: string): number[] | undefined {
  let text = address.toLowerCase();
  // A trailing dotted IPv4 (::ffff:1.2.3.4, 64:ff9b::1.2.3.4) becomes two hex groups.
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    if (!isIPv4(tail)) return undefined;
    const [a, b, c, d] = tail.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string): number[] => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const head = parse(halves[0]!);
  const rest = halves.length === 2 ? parse(halves[1]!) : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const groups = [...head, ...new Array<number>(halves.length === 2 ? missing : 0).fill(0), ...rest];
  if (groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff)) return undefined;
  return groups;
}
