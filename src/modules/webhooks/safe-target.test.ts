import { describe, expect, it } from 'vitest';
import { parseEnv } from '../../config/env.js';
import {
  isAllowedPrivateHost,
  isRefusedAddress,
  NO_PRIVATE_HOSTS,
  parseAllowedPrivateHosts,
  RefusedTarget,
  resolveSafeTarget,
} from './safe-target.js';

describe('safe webhook targets', () => {
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
    ];
    for (const address of refused) expect(isRefusedAddress(address), address).toBe(true);
    const allowed = ['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'];
    for (const address of allowed) expect(isRefusedAddress(address), address).toBe(false);
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
      resolveSafeTarget(new URL('https://public.test/x'), NO_PRIVATE_HOSTS, resolve),
    ).resolves.toEqual({ address: '93.184.216.34', family: 4 });
    for (const url of [
      'https://rebind.test/',
      'https://mixed.test/',
      'https://[::1]/',
      'https://nowhere.test/',
    ]) {
      await expect(resolveSafeTarget(new URL(url), NO_PRIVATE_HOSTS, resolve), url).rejects.toBeInstanceOf(
        RefusedTarget,
      );
    }
    // Plain http only to an allowed host.
    await expect(
      resolveSafeTarget(new URL('http://public.test/'), NO_PRIVATE_HOSTS, resolve),
    ).rejects.toThrow(/plain http/);
    const { allowed, invalid } = parseAllowedPrivateHosts(['127.0.0.1', 'hooks.internal', '10.0.0.0/8', ' ']);
    expect(invalid).toEqual([]);
    await expect(
      resolveSafeTarget(new URL('http://hooks.internal/'), allowed, resolve),
    ).resolves.toMatchObject({
      address: '10.0.0.8',
    });
    await expect(resolveSafeTarget(new URL('https://mixed.test/'), allowed, resolve)).resolves.toMatchObject({
      address: '93.184.216.34',
    });
    await expect(
      resolveSafeTarget(new URL('http://127.0.0.1:8080/'), allowed, resolve),
    ).resolves.toMatchObject({
      address: '127.0.0.1',
    });
    // An allowed address range does not let a plain-http URL name a host that merely resolves into it.
    expect(isAllowedPrivateHost(allowed, new URL('http://rebind.test/'))).toBe(false);
    expect(isAllowedPrivateHost(allowed, new URL('http://10.9.9.9/'))).toBe(true);
  });

  it('CADRE_WEBHOOKS_ALLOWED_PRIVATE_HOSTS: host names and CIDRs, anything else refused at start-up naming it', () => {
    const env = parseEnv({ CADRE_WEBHOOKS_ALLOWED_PRIVATE_HOSTS: '127.0.0.1, hooks.internal,fd00::/8' });
    expect(isAllowedPrivateHost(env.CADRE_WEBHOOKS_ALLOWED_PRIVATE_HOSTS, new URL('http://[fd00::5]/'))).toBe(
      true,
    );
    expect(
      isAllowedPrivateHost(parseEnv({}).CADRE_WEBHOOKS_ALLOWED_PRIVATE_HOSTS, new URL('http://127.0.0.1/')),
    ).toBe(false);
    expect(() => parseEnv({ CADRE_WEBHOOKS_ALLOWED_PRIVATE_HOSTS: '10.0.0.0/33,http://x' })).toThrow(
      /"10\.0\.0\.0\/33" is neither a host name nor an IP address or CIDR[\s\S]*"http:\/\/x"/,
    );
    expect(() => parseEnv({ CADRE_WEBHOOKS_LEASE_SECONDS: '5' })).toThrow(
      /CADRE_WEBHOOKS_LEASE_SECONDS=5: .*15/,
    );
  });
});
