import { isIPv6 } from 'node:net';

const MAPPED_IPV4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/**
 * The address a per-address limit counts a client by. IPv4 as it is (an IPv4-mapped IPv6 address as its IPv4).
 * IPv6 by its /64: one subscriber commonly holds a whole /64 and can take a fresh address from it for every
 * request, so counting single IPv6 addresses would hand out a fresh budget each time.
 */
export function addressKey(ip: string): string {
  // Most clients: an IPv4 address has no colon, and needs neither the regular expressions nor isIPv6's.
  if (!ip.includes(':')) return ip;
  const mapped = MAPPED_IPV4.exec(ip);
  if (mapped) return mapped[1] as string;
  const address = ip.split('%', 1)[0] as string; // a zone (fe80::1%eth0) names the interface, not the client
  if (!isIPv6(address)) return ip;
  const [head = '', tail] = address.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const left = groups(head);
  // An embedded IPv4 tail (::1.2.3.4) fills two groups; only the first four matter here.
  const right =
    tail === undefined ? [] : groups(tail).flatMap((group) => (group.includes('.') ? ['0', '0'] : [group]));
  const full =
    tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  const prefix = full.slice(0, 4).map((group) => Number.parseInt(group, 16).toString(16));
  return `${prefix.join(':')}::/64`;
}
