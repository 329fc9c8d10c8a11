import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { expect, it } from 'vitest';
import { ROOT } from './support/process.js';

type Lock = { packages: Record<string, { engines?: { node?: string }; optional?: boolean; os?: string[] }> };

it("package.json's engines.node is honest: its oldest Node satisfies every locked dependency's engines", () => {
  const ours = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } })
    .engines.node;
  const oldest = semver.minVersion(ours)!.version;
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as Lock;
  const refusing = Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && entry.engines?.node)
    .filter(([, entry]) => !semver.satisfies(oldest, entry.engines!.node!))
    .map(([path, entry]) => `${path.replace(/^.*node_modules\//, '')} wants node ${entry.engines!.node}`);
  expect(refusing, `engines.node is ${ours}`).toEqual([]);
});
