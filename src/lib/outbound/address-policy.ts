import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which addresses an outbound request Cadre makes on a user's behalf may reach (docs/operations.md, "Outbound
 * requests"): a webhook delivery, an OAuth provider's discovery, authorization, token, userinfo and
 * revocation endpoints. Only public unicast addresses, unless the operator allows more.
 *
 * Allowed, by default, are only:
 * - IPv4 addresses ipaddr.js classes as `unicast` (not loopback, private, link-local, carrier-grade NAT,
 *   unspecified, broadcast, multicast, reserved, documentation or benchmarking);
 * - IPv6 global unicast (2000::/3) that is not a special range (Teredo, 6to4, documentation, ORCHID, …);
 * - the two IPv6 forms that reach the IPv4 internet, judged by the IPv4 address they carry: IPv4-mapped
 *   (::ffff:a.b.c.d) and the well-known NAT64 prefix (64:ff9b::/96, so an IPv6-only host behind DNS64 still
 *   reaches public IPv4 receivers).
 * Everything else is refused, every other IPv4-embedding form included (IPv4-compatible ::a.b.c.d,
 * IPv4-translated ::ffff:0:a.b.c.d, local-use NAT64 64:ff9b:1::/48, 6to4, Teredo): a list of what is allowed
 * cannot miss a new encoding the way a list of what is refused can.
 */

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

/** The IPv4 address an IPv6 one reaches the IPv4 internet as (IPv4-mapped, well-known NAT64), if it is one. */
function carriedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  if (address.isIPv4MappedAddress()) return address.toIPv4Address();
  if (address.match(NAT64_WELL_KNOWN)) return ipaddr.IPv4.parse(address.toByteArray().slice(12).join('.'));
  return undefined;
}

/**
 * An address literal, parsed strictly (Node's rules: dotted-decimal IPv4, standard IPv6), or undefined. An
 * IPv6 address goes through the URL parser's canonical form first (all hex groups): ipaddr.js reads a
 * trailing dotted quad as IPv4-mapped whatever precedes it (`::8.8.8.8` would pass for `::ffff:8.8.8.8`).
 */
function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const bare = text.replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 0) return undefined;
  return family === 4
    ? ipaddr.IPv4.parse(bare)
    : ipaddr.IPv6.parse(new URL(`http://[${bare}]/`).hostname.slice(1, -1));
}

/** Whether an address is public: one Cadre may connect to without the operator's leave. */
export function isPublicAddress(text: string): boolean {
  const address = parseAddress(text);
  if (address === undefined) return false;
  if (address.kind() === 'ipv4') return address.range() === 'unicast';
  const v6 = address as ipaddr.IPv6;
  const v4 = carriedIpv4(v6);
  if (v4 !== undefined) return v4.range() === 'unicast';
  return v6.match(GLOBAL_UNICAST_V6) && v6.range() === 'unicast';
}

/** The operator's exceptions: host names (exact, case-insensitive) and address ranges. */
export interface OutboundAllowance {
  readonly names: ReadonlySet<string>;
  readonly ranges: BlockList;
  /** The settings that would widen it, named in every refusal (`CADRE_DEV=1 …`). */
  readonly widenedBy?: string | undefined;
}

/**
 * Parses an allowance list (`127.0.0.1,hooks.internal,10.0.0.0/8,fd00::/8`: host names, addresses and
 * CIDRs). Answers the entries that are neither in `invalid`.
 */
export function parseOutboundAllowance(entries: readonly string[]): {
  allowance: OutboundAllowance;
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
  return { allowance: { names, ranges }, invalid };
}

/** No exception: public addresses only (the default everywhere). */
export const NO_ALLOWANCE = parseOutboundAllowance([]).allowance;

/** This host's names and addresses: what CADRE_DEV=1 allows besides the operator's list. */
export const LOOPBACK_ENTRIES = ['localhost', '127.0.0.0/8', '::1'] as const;

/** This host only (`localhost`, 127.0.0.0/8, ::1): a local provider during development. */
export const LOOPBACK_ALLOWANCE = parseOutboundAllowance(LOOPBACK_ENTRIES).allowance;

/** A URL's host as written, without IPv6 brackets and a trailing dot, lower case. */
const hostOf = (url: URL) =>
  url.hostname
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');

const inRanges = (allowance: OutboundAllowance, text: string) => {
  const address = parseAddress(text);
  if (address === undefined) return false;
  const v4 = address.kind() === 'ipv6' ? carriedIpv4(address as ipaddr.IPv6) : address;
  return v4 !== undefined
    ? allowance.ranges.check(v4.toString(), 'ipv4')
    : allowance.ranges.check(address.toString(), 'ipv6');
};

/** Whether the operator allows this URL's host (by name, or an address literal within an allowed range). */
export function isAllowedHost(allowance: OutboundAllowance, url: URL): boolean {
  const host = hostOf(url);
  return allowance.names.has(host) || inRanges(allowance, host);
}

/** `localhost` and its subdomains always mean this host (RFC 6761), whatever a resolver says. */
const isLocalhostName = (host: string) => host === 'localhost' || host.endsWith('.localhost');

/**
 * Whether the URL's host is refused without asking DNS: an address literal that is not public, or a
 * `localhost` name, unless the allowance lists it. Checked where a URL is stored, so a target that can never
 * be reached is refused at once instead of failing at every delivery; a name is still checked on what it
 * resolves to at each request (resolveCheckedAddress).
 */
export function isRefusedLiteral(allowance: OutboundAllowance, url: URL): boolean {
  if (isAllowedHost(allowance, url)) return false;
  const host = hostOf(url);
  if (isLocalhostName(host)) return true;
  return isIP(host) !== 0 && !isPublicAddress(host);
}

/**
 * A target Cadre does not connect to. Its message names the URL's host (which the user wrote) and never the
 * addresses it resolved to, and is the same whether the name does not resolve or resolves somewhere private:
 * what an internal name resolves to, or whether it exists, is not told.
 */
export class RefusedTarget extends Error {
  constructor(
    host: string,
    why: 'plain http' | 'no public address' = 'no public address',
    widenedBy: string | undefined = undefined,
  ) {
    const allow = widenedBy ? `; ${widenedBy}` : '';
    super(
      why === 'plain http'
        ? `plain http to ${host} is not allowed (https only, unless the operator allows the host${allow})`
        : `${host} has no address Cadre may connect to (it does not resolve, or resolves to a private, loopback, link-local or reserved address${allow})`,
    );
  }
}

export type Resolver = (host: string) => Promise<Array<{ address: string; family: number }>>;

const systemResolver: Resolver = (host) => lookup(host, { all: true, verbatim: true });

/**
 * Resolves the URL's host now and answers the address to connect to, or throws RefusedTarget. Every address
 * the name has must be allowed (a name with one public and one private address is refused: which one a
 * connection would take is not ours to predict). Connect to the address answered, never to the name again
 * (outbound-request.ts does), so a second lookup cannot land somewhere else (DNS rebinding).
 */
export async function resolveCheckedAddress(
  url: URL,
  allowance: OutboundAllowance,
  resolve: Resolver = systemResolver,
): Promise<{ address: string; family: 4 | 6 }> {
  const host = hostOf(url);
  if (url.protocol !== 'https:' && !isAllowedHost(allowance, url))
    throw new RefusedTarget(host, 'plain http', allowance.widenedBy);
  let addresses: Array<{ address: string; family: number }>;
  if (isIP(host) !== 0) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    addresses = await resolve(host).catch(() => []);
  }
  if (addresses.length === 0) throw new RefusedTarget(host, 'no public address', allowance.widenedBy);
  const byName = allowance.names.has(host);
  for (const { address } of addresses) {
    if (!isPublicAddress(address) && !byName && !inRanges(allowance, address))
      throw new RefusedTarget(host, 'no public address', allowance.widenedBy);
  }
  const first = addresses[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}
