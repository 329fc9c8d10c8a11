import { describe, expect, it } from 'vitest';
import { parseEnv } from '../../config/env.js';
import {
  isAllowedHost,
  isPublicAddress,
  NO_ALLOWANCE,
  parseOutboundAllowance,
  RefusedTarget,
  resolveCheckedAddress,
} from '../../lib/outbound/address-policy.js';

describe('the outbound address policy', () => {
  it('refuses loopback, private, link-local, metadata, unspecified, multicast and reserved addresses, v4 and v6', () => {
    const refused = [
      '127.0.0.1',
      '127.255.0.9',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254', // cloud metadata
      '100.100.100.200', // Alibaba's metadata, in carrier-grade NAT space
      '0.0.0.0',
      '224.0.0.1',
      '239.255.255.250',
      '255.255.255.255',
      '198.18.0.1',
      '::',
      '::1',
      'fe80::1',
      'fe80::1%eth0',
      'fc00::1',
      'fd00:ec2::254', // AWS's IPv6 metadata
      'ff02::1',
      '::ffff:127.0.0.1', // IPv4-mapped, dotted
      '::ffff:7f00:1', // IPv4-mapped, hex
      '::ffff:169.254.169.254',
      '64:ff9b::a9fe:a9fe', // NAT64 of 169.254.169.254
      '64:ff9b::10.0.0.1',
      '::127.0.0.1', // IPv4-compatible
      '2002:7f00:1::', // 6to4 of 127.0.0.1
      '2001:db8::1',
      'not an address',
      // Every other form that carries an IPv4 address (or is special) is refused outright, whatever it carries.
      '::ffff:0:127.0.0.1', // IPv4-translated (RFC 6145)
      '::ffff:0:7f00:1',
      '::ffff:0:a9fe:a9fe',
      '::ffff:0:8.8.8.8', // even a public one: only the mapped form and well-known NAT64 are judged by it
      '::8.8.8.8', // IPv4-compatible (deprecated)
      '::a9fe:a9fe',
      '64:ff9b:1::7f00:1', // local-use NAT64 (RFC 8215)
      '64:ff9b:1::808:808',
      '2002:808:808::1', // 6to4, even of a public address
      '2001:0:4136:e378:8000:63bf:80ff:fffe', // Teredo
      '2001:2::1', // benchmarking
      '3fff::1', // documentation (RFC 9637)
      '5f00::1', // segment routing
      '100::1', // discard-only
      'fec0::1', // site-local
      '::ffff:0:0:0:1',
      '1::1', // outside global unicast 2000::/3
    ];
    for (const address of refused) expect(isPublicAddress(address), address).toBe(false);
    const allowed = [
      '93.184.216.34',
      '8.8.8.8',
      '172.32.0.1',
      '2606:4700:4700::1111',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808', // well-known NAT64 of 8.8.8.8 (an IPv6-only host behind DNS64)
    ];
    for (const address of allowed) expect(isPublicAddress(address), address).toBe(true);
  });

  it('resolves at delivery time and refuses a name with any refused address unless the operator allows it', async () => {
    const dns = (answers: Record<string, string[]>) => async (host: string) =>
      (answers[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    const resolve = dns({
      'public.test': ['93.184.216.34'],
      'rebind.test': ['127.0.0.1'],
      'mixed.test': ['93.184.216.34', '10.0.0.7'],
      'hooks.internal': ['10.0.0.8'],
    });
    await expect(
      resolveCheckedAddress(new URL('https://public.test/x'), NO_ALLOWANCE, resolve),
    ).resolves.toEqual({ address: '93.184.216.34', family: 4 });
    for (const url of [
      'https://rebind.test/',
      'https://mixed.test/',
      'https://[::1]/',
      'https://nowhere.test/',
    ]) {
      await expect(resolveCheckedAddress(new URL(url), NO_ALLOWANCE, resolve), url).rejects.toBeInstanceOf(
        RefusedTarget,
      );
    }
    // Plain http only to an allowed host.
    await expect(
      resolveCheckedAddress(new URL('http://public.test/'), NO_ALLOWANCE, resolve),
    ).rejects.toThrow(/plain http/);
    const { allowance: allowed, invalid } = parseOutboundAllowance([
      '127.0.0.1',
      'hooks.internal',
      '10.0.0.0/8',
      ' ',
    ]);
    expect(invalid).toEqual([]);
    await expect(
      resolveCheckedAddress(new URL('http://hooks.internal/'), allowed, resolve),
    ).resolves.toMatchObject({
      address: '10.0.0.8',
    });
    await expect(
      resolveCheckedAddress(new URL('https://mixed.test/'), allowed, resolve),
    ).resolves.toMatchObject({
      address: '93.184.216.34',
    });
    await expect(
      resolveCheckedAddress(new URL('http://127.0.0.1:8080/'), allowed, resolve),
    ).resolves.toMatchObject({
      address: '127.0.0.1',
    });
    // An allowed address range does not let a plain-http URL name a host that merely resolves into it.
    expect(isAllowedHost(allowed, new URL('http://rebind.test/'))).toBe(false);
    expect(isAllowedHost(allowed, new URL('http://10.9.9.9/'))).toBe(true);
  });

  it('CADRE_WEBHOOKS_ALLOWED_PRIVATE_HOSTS: host names and CIDRs, anything else refused at start-up naming it', () => {
    const env = parseEnv({ CADRE_WEBHOOKS_ALLOWED_PRIVATE_HOSTS: '127.0.0.1, hooks.internal,fd00::/8' });
    expect(isAllowedHost(env.CADRE_WEBHOOKS_ALLOWED_PRIVATE_HOSTS, new URL('http://[fd00::5]/'))).toBe(true);
    expect(
      isAllowedHost(parseEnv({}).CADRE_WEBHOOKS_ALLOWED_PRIVATE_HOSTS, new URL('http://127.0.0.1/')),
    ).toBe(false);
    expect(() => parseEnv({ CADRE_WEBHOOKS_ALLOWED_PRIVATE_HOSTS: '10.0.0.0/33,http://x' })).toThrow(
      /"10\.0\.0\.0\/33" is neither a host name nor an IP address or CIDR[\s\S]*"http:\/\/x"/,
    );
    expect(() => parseEnv({ CADRE_WEBHOOKS_LEASE_SECONDS: '5' })).toThrow(
      /CADRE_WEBHOOKS_LEASE_SECONDS=5: .*15/,
    );
  });
});
