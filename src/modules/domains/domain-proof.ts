import { Resolver } from 'node:dns/promises';
import {
  type Resolver as AddressResolver,
  NO_ALLOWANCE,
  type OutboundAllowance,
} from '../../lib/outbound/address-policy.js';
import { OutboundError, outboundRequest } from '../../lib/outbound/outbound-request.js';

/** Where the TXT record lives: a name of its own, so the domain's other TXT records stay untouched. */
export const TXT_PREFIX = '_cadre-challenge';
/** The path of the file proof, under the domain's HTTPS origin. */
export const WELL_KNOWN_PATH = '/.well-known/cadre-domain-verification.txt';

export type ProofMethod = 'dns' | 'http';

/** The line both proofs must hold: in the TXT record's value, or as a line of the file. */
export const proofLine = (challenge: string) => `cadre-domain-verification=${challenge}`;

export type ProofOutcome =
  | { ok: true; method: ProofMethod }
  | { ok: false; method: ProofMethod; reason: string };

export interface DomainProofOptions {
  /**
   * DNS servers asked for the TXT record (`ip` or `ip:port`, CADRE_DNS_SERVERS); empty: the system's
   * resolvers. Tests run a DNS server on loopback.
   */
  dnsServers?: readonly string[] | undefined;
  /** Who the file proof may reach besides public addresses (the outbound guard's allowance). */
  allowance?: OutboundAllowance | undefined;
  /** The origin the file is fetched from; default `https://{domain}` (tests: a server on loopback). */
  origin?: ((domain: string) => string) | undefined;
  /** Tests resolve the file proof's host themselves. */
  resolve?: AddressResolver | undefined;
  timeoutMs?: number | undefined;
}

export type DomainProof = (domain: string, challenge: string, method: ProofMethod) => Promise<ProofOutcome>;

/**
 * Checks a domain's proof now: the TXT record at `_cadre-challenge.{domain}` through the configured DNS
 * servers, or the file at `https://{domain}/.well-known/cadre-domain-verification.txt` through the outbound
 * guard (src/lib/outbound/: public addresses only, redirects not followed, a bounded answer). A failure says
 * what was found in words the owner can act on; it never throws.
 */
export function createDomainProof(options: DomainProofOptions = {}): DomainProof {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const resolver = new Resolver({ timeout: Math.min(timeoutMs, 2_000), tries: 2 });
  if (options.dnsServers && options.dnsServers.length > 0) resolver.setServers([...options.dnsServers]);
  const origin = options.origin ?? ((domain: string) => `https://${domain}`);

  async function dns(domain: string, expected: string): Promise<ProofOutcome> {
    const name = `${TXT_PREFIX}.${domain}`;
    try {
      const records = await resolver.resolveTxt(name);
      // A long TXT value arrives in 255-byte strings: they are one value.
      if (records.some((chunks) => chunks.join('').trim() === expected)) return { ok: true, method: 'dns' };
      return { ok: false, method: 'dns', reason: `no TXT record at ${name} holds ${expected}` };
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'ENOTFOUND' || code === 'ENODATA')
        return { ok: false, method: 'dns', reason: `no TXT record at ${name}` };
      return { ok: false, method: 'dns', reason: `the DNS lookup of ${name} failed (${code ?? 'error'})` };
    }
  }

  async function http(domain: string, expected: string): Promise<ProofOutcome> {
    const url = new URL(`${origin(domain)}${WELL_KNOWN_PATH}`);
    try {
      const answer = await outboundRequest(url, {
        method: 'GET',
        headers: { 'user-agent': 'Cadre domain verification', accept: 'text/plain' },
        allowance: options.allowance ?? NO_ALLOWANCE,
        timeoutMs,
        maxBodyBytes: 4_096,
        resolve: options.resolve,
      });
      if (answer.status !== 200)
        return { ok: false, method: 'http', reason: `${url.href} answered ${answer.status}` };
      const lines = answer.body.toString('utf8').split(/\r?\n/);
      if (lines.some((line) => line.trim() === expected)) return { ok: true, method: 'http' };
      return { ok: false, method: 'http', reason: `${url.href} does not hold ${expected}` };
    } catch (error) {
      const why = error instanceof OutboundError || error instanceof Error ? error.message : 'failed';
      return { ok: false, method: 'http', reason: `${url.href} could not be read: ${why}` };
    }
  }

  return (domain, challenge, method) =>
    method === 'dns' ? dns(domain, proofLine(challenge)) : http(domain, proofLine(challenge));
}
