import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Where a webhook may be sent (docs/webhooks.md, "Safe targets"). A target is checked at delivery time, on
 * the addresses its name resolves to then, and the request connects to the address checked (never a second
 * lookup), so a name that resolves to a public address at creation and to a private one later (DNS
 * rebinding) is refused. Only the operator widens this (CADRE_WEBHOOKS_ALLOWED_PRIVATE_HOSTS).
 */

/** Ranges no webhook goes to: this host, private networks, link-local (cloud metadata), multicast, reserved. */
const REFUSED_V4: Array<[string, number]> = [
  ['0.0.0.0', 8], // "this network", the unspecified address
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT (and some clouds' metadata, 100.100.100.200)
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local: 169.254.169.254 is the metadata service of most clouds
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the broadcast address
];
const REFUSED_V6: Array<[string, number]> = [
  ['::', 96], // unspecified, loopback (::1), IPv4-compatible
  ['64:ff9b:1::', 48],
  ['100::', 64], // discard-only
  ['2001::', 23], // IETF protocol assignments (Teredo, ORCHID…)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: embeds an IPv4 address
  ['fc00::', 7], // unique local (fd00:ec2::254 is a metadata address)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];

const refused = new BlockList();
for (const [net, prefix] of REFUSED_V4) refused.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of REFUSED_V6) refused.addSubnet(net, prefix, 'ipv6');

/** The 16 bytes of an IPv6 address (isIP() already said it is one). */
function ipv6Bytes(address: string): number[] {
  let text = address.replace(/%.*$/, '');
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -v4[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups =
    tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return groups.flatMap((group) => {
    const value = Number.parseInt(group || '0', 16);
    return [value >> 8, value & 0xff];
  });
}

/**
 * The IPv4 address an IPv6 one carries to the IPv4 internet (IPv4-mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96),
 * which is what it reaches, so what is checked.
 */
function embeddedIpv4(address: string): string | undefined {
  const bytes = ipv6Bytes(address);
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0);
  const mapped = zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff;
  const nat64 = bytes[0] === 0 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12);
  return mapped || nat64 ? bytes.slice(12).join('.') : undefined;
}

/** Whether an address is one no webhook goes to without the operator's leave. */
export function isRefusedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return refused.check(address, 'ipv4');
  if (family !== 6) return true;
  const v4 = embeddedIpv4(address);
  if (v4 !== undefined) return refused.check(v4, 'ipv4');
  return refused.check(address.replace(/%.*$/, ''), 'ipv6');
}

/** The operator's exceptions: host names (exact, case-insensitive) and address ranges. */
export interface AllowedPrivateHosts {
  readonly names: ReadonlySet<string>;
  readonly ranges: BlockList;
}

/**
 * Parses CADRE_WEBHOOKS_ALLOWED_PRIVATE_HOSTS (`127.0.0.1,hooks.internal,10.0.0.0/8,fd00::/8`). Answers the
 * entries that are neither a host name nor an address or CIDR in `invalid`.
 */
export function parseAllowedPrivateHosts(entries: readonly string[]): {
  allowed: AllowedPrivateHosts;
  invalid: string[];
} {
  const names = new Set<string>();
  const ranges = new BlockList();
  const invalid: string[] = [];
  for (const raw of entries) {
    const entry = raw
      .trim()
      .toLowerCase()
      .replace(/^\[(.*)\]$/, '$1');
    if (entry === '') continue;
    const [net, prefixText, extra] = entry.split('/');
    const family = isIP(net!);
    if (family !== 0 && extra === undefined) {
      const max = family === 4 ? 32 : 128;
      const prefix = prefixText === undefined ? max : Number(prefixText);
      if (!/^\d{1,3}$/.test(prefixText ?? String(max)) || prefix > max) {
        invalid.push(raw);
        continue;
      }
      ranges.addSubnet(net!, prefix, family === 4 ? 'ipv4' : 'ipv6');
    } else if (
      /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/.test(
        entry,
      )
    ) {
      names.add(entry.replace(/\.$/, ''));
    } else {
      invalid.push(raw);
    }
  }
  return { allowed: { names, ranges }, invalid };
}

export const NO_PRIVATE_HOSTS = parseAllowedPrivateHosts([]).allowed;

/** A URL's host as written, without IPv6 brackets and a trailing dot, lower case. */
const hostOf = (url: URL) =>
  url.hostname
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');

const inRanges = (allowed: AllowedPrivateHosts, address: string) => {
  const family = isIP(address);
  if (family === 0) return false;
  const v4 = family === 6 ? embeddedIpv4(address) : undefined;
  return v4 !== undefined
    ? allowed.ranges.check(v4, 'ipv4')
    : allowed.ranges.check(address, family === 4 ? 'ipv4' : 'ipv6');
};

/** Whether the operator allows this URL's host (by name, or an address literal within an allowed range). */
export function isAllowedPrivateHost(allowed: AllowedPrivateHosts, url: URL): boolean {
  const host = hostOf(url);
  return allowed.names.has(host) || inRanges(allowed, host);
}

export class RefusedTarget extends Error {}

/**
 * Resolves the URL's host now and answers the address to connect to, or throws RefusedTarget. Every address
 * the name has must be allowed (a name with one public and one private address is refused: which one a
 * connection would take is not ours to predict).
 */
export async function resolveSafeTarget(
  url: URL,
  allowed: AllowedPrivateHosts,
  resolve: (host: string) => Promise<Array<{ address: string; family: number }>> = (host) =>
    lookup(host, { all: true, verbatim: true }),
): Promise<{ address: string; family: 4 | 6 }> {
  const host = hostOf(url);
  const byName = allowed.names.has(host);
  if (url.protocol !== 'https:' && !isAllowedPrivateHost(allowed, url)) {
    throw new RefusedTarget('plain http is allowed only to hosts in CADRE_WEBHOOKS_ALLOWED_PRIVATE_HOSTS');
  }
  let addresses: Array<{ address: string; family: number }>;
  if (isIP(host) !== 0) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await resolve(host);
    } catch (error) {
      throw new RefusedTarget(`${host} does not resolve (${(error as { code?: string }).code ?? 'error'})`);
    }
  }
  if (addresses.length === 0) throw new RefusedTarget(`${host} does not resolve`);
  for (const { address } of addresses) {
    if (isRefusedAddress(address) && !byName && !inRanges(allowed, address)) {
      throw new RefusedTarget(
        `${host} resolves to ${address}, a private, loopback, link-local or reserved address (allowed only through CADRE_WEBHOOKS_ALLOWED_PRIVATE_HOSTS)`,
      );
    }
  }
  const first = addresses[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}
