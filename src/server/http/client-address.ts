/**
 * Who a request comes from: the proxies whose X-Forwarded-For is believed
 * (`--trust-proxy`), and the scope a client's failed authentications are
 * counted in. An IPv6 client holds a whole /64 (one prefix per household or
 * server), so counting per full address would give it 2^64 fresh counts.
 */
import { isIP } from 'node:net';
import { ServerSetupError } from '../setup-error.js';

/** `127.0.0.1/32,fd00::/8` → the addresses and CIDR ranges, each checked; fastify's trustProxy takes them as they are. */
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
  let text = address.replace(/%.*$/, '');
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

/** What failed authentications are counted by: an IPv4 address (also IPv4-mapped), or an IPv6 /64. */
export function failureScope(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (isIP(ip.replace(/%.*$/, '')) !== 6) return ip;
  const prefix = ipv6Groups(ip).slice(0, 4);
  return `${prefix.map((group) => group.toString(16)).join(':')}::/64`;
}
