/** IP addresses and CIDR ranges (v4 and v6), as the service matches them at tracking time. */
import { isIP } from 'node:net';

/** `203.0.113.7`, `198.51.100.0/24`, `2001:db8::/32`; no zone ids, no leading zeros in the prefix. */
export function isIpOrCidr(entry: string): boolean {
  const slash = entry.indexOf('/');
  if (slash === -1) return isIP(entry) !== 0 && !entry.includes('%');
  const address = entry.slice(0, slash);
  const prefix = entry.slice(slash + 1);
  const version = isIP(address);
  if (version === 0 || address.includes('%') || !/^(0|[1-9]\d{0,2})$/.test(prefix)) return false;
  return Number(prefix) <= (version === 4 ? 32 : 128);
}
