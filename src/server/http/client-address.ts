/**
 * Who a request comes from: the proxies whose X-Forwarded-For is believed
 * (`--trust-proxy`), and the scope a client's failed authentications are
 * counted in. An IPv6 client holds a whole /64 (one prefix per household or
 * server), so counting per full address would give it 2^64 fresh counts.
 */
import { isIP } from 'node:net';
import { ServerSetupError } from '../setup-error.js';

/** `127.0.0.1/32,fd00::/8` → the addresses and CIDR ranges, each checked. */
export function trustedProxies(entries: readonly string[]): string[] {
  return entries.map((entry) => {
    const [address = '', prefix, extra] = entry.trim().split('/');
    const family = isIP(address);
    const bits = family === 4 ? 32 : 128;
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits);
    if (family === 0 || !prefixOk || extra !== undefined) {
      throw new ServerSetupError(
        `--trust-proxy: "${entry}" is not an IP address or CIDR range (like 127.0.0.1/32 or fd00::/8)`,
      );
    }
    return entry.trim();
  });
}

/** The eight 16-bit groups of an IPv6 address (`::` expanded, an embedded IPv4 tail converted). */
function ipv6Groups(address: string): number[] {
  let text = address;
  const ipv4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (ipv4) {
    const [a, b, c, d] = ipv4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, ipv4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...Array<string>(zeros).fill('0'), ...right].map((group) => Number.parseInt(group, 16));
}

/** An IPv4-mapped IPv6 address as IPv4, without an IPv6 zone (`%eth0`). */
const plainAddress = (address: string) => address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '').replace(/%.*$/, '');

/** An address as a number and its width: IPv4 (IPv4-mapped IPv6 too) in 32 bits, IPv6 in 128. */
function numeric(address: string): { value: bigint; bits: number } | undefined {
  const plain = plainAddress(address);
  const family = isIP(plain);
  if (family === 4) {
    return { value: plain.split('.').reduce((sum, octet) => (sum << 8n) | BigInt(octet), 0n), bits: 32 };
  }
  if (family !== 6) return undefined;
  return { value: ipv6Groups(plain).reduce((sum, group) => (sum << 16n) | BigInt(group), 0n), bits: 128 };
}

/**
 * Whether a connection's peer is one of the named proxies (addresses or CIDR
 * ranges as `trustedProxies` returned them).
 */
export function isTrustedProxy(ranges: readonly string[]): (address: string) => boolean {
  const parsed = ranges.map((range) => {
    const [address = '', prefix] = range.split('/');
    const net = numeric(address)!;
    return { ...net, prefix: prefix === undefined ? net.bits : Number(prefix) };
  });
  return (address) => {
    const peer = numeric(address);
    if (!peer) return false;
    return parsed.some((range) => {
      if (range.bits !== peer.bits) return false;
      const shift = BigInt(range.bits - range.prefix);
      return peer.value >> shift === range.value >> shift;
    });
  };
}

/** What failed authentications are counted by: an IPv4 address (also IPv4-mapped), or an IPv6 /64. */
export function failureScope(ip: string): string {
  const plain = plainAddress(ip);
  if (isIP(plain) !== 6) return plain;
  const prefix = ipv6Groups(plain).slice(0, 4);
  return `${prefix.map((group) => group.toString(16)).join(':')}::/64`;
}
