import fc from 'fast-check';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../http/errors.js';
import { keyFromUrl, versionOrder } from './expert-key.js';

const identifier = fc.oneof(
  fc.nat({ max: 10_000_000 }).map(String),
  fc.stringMatching(/^[0-9A-Za-z-]{1,8}$/).filter((s) => !/^\d+$/.test(s) || !/^0\d/.test(s)),
);
const version = fc
  .tuple(
    fc.nat({ max: 100_000 }),
    fc.nat({ max: 100_000 }),
    fc.nat({ max: 100_000 }),
    fc.array(identifier, { maxLength: 4 }),
  )
  .map(([major, minor, patch, pre]) => `${major}.${minor}.${patch}${pre.length ? `-${pre.join('.')}` : ''}`)
  .filter((v) => semver.valid(v) === v);

const byteCompare = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return Math.sign(Buffer.compare(x, y));
};

describe('versionOrder', () => {
  it('orders bytes exactly as SemVer precedence', () => {
    fc.assert(
      fc.property(version, version, (a, b) => {
        expect(byteCompare(versionOrder(a), versionOrder(b))).toBe(semver.compare(a, b));
      }),
      { numRuns: 2000 },
    );
  });

  it('handles the cases of the SemVer specification', () => {
    const ordered = [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '1.9.0',
      '1.10.0',
      '2.0.0',
    ];
    const sorted = [...ordered].sort((a, b) => byteCompare(versionOrder(a), versionOrder(b)));
    expect(sorted).toEqual(ordered);
  });
});

describe('keyFromUrl', () => {
  const cases: Array<[string, { name: string; version?: string; tag?: string; versions: boolean }]> = [
    ['/registry/experts/writer', { name: 'writer', versions: false }],
    ['/registry/experts/writer@1.2.3', { name: 'writer', version: '1.2.3', versions: false }],
    ['/registry/experts/writer%401.2.3', { name: 'writer', version: '1.2.3', versions: false }],
    ['/registry/experts/writer@latest', { name: 'writer', tag: 'latest', versions: false }],
    ['/registry/experts/writer@stable?x=1', { name: 'writer', tag: 'stable', versions: false }],
    ['/registry/experts/@acme/writer', { name: '@acme/writer', versions: false }],
    [
      '/registry/experts/%40acme%2Fwriter%401.0.0',
      { name: '@acme/writer', version: '1.0.0', versions: false },
    ],
    ['/registry/experts/%40acme%2fwriter', { name: '@acme/writer', versions: false }],
    ['/registry/experts/writer/versions', { name: 'writer', versions: true }],
    ['/registry/experts/writer@1.0.0/versions', { name: 'writer', version: '1.0.0', versions: true }],
    ['/registry/experts/@acme/writer/versions', { name: '@acme/writer', versions: true }],
    ['/registry/experts/%40acme%2Fwriter%2Fversions', { name: '@acme/writer', versions: true }],
    ['/registry/experts/@acme/versions', { name: '@acme/versions', versions: false }],
    ['/registry/experts/versions', { name: 'versions', versions: false }],
    // The Perstack-compatible face's path, as its client encodes keys (encodeURIComponent).
    ['/api/registry/v1/experts/writer', { name: 'writer', versions: false }],
    [
      '/api/registry/v1/experts/%40acme%2Fwriter%401.0.0',
      { name: '@acme/writer', version: '1.0.0', versions: false },
    ],
    ['/api/registry/v1/experts/%40acme%2Fwriter/versions', { name: '@acme/writer', versions: true }],
  ];
  it.each(cases)('%s', (url, expected) => {
    const { key, versions } = keyFromUrl(url, true);
    expect({ ...key, versions }).toMatchObject(expected);
  });

  it('does not read /versions when the route is not a GET', () => {
    expect(() => keyFromUrl('/registry/experts/writer/versions', false)).toThrow(ApiError);
  });

  it.each([
    '/registry/experts/',
    '/registry/experts/Writer',
    '/registry/experts/a@b@c',
    '/registry/experts/%E0%A4%A',
    '/api/registry/v1/experts/',
    '/api/registry/experts/writer',
  ])('rejects %s', (url) => {
    expect(() => keyFromUrl(url, true)).toThrow(ApiError);
  });
});
