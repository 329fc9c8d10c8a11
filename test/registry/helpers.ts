import { expect } from 'vitest';
import type { HttpResult } from '../support/http.js';
import type { TestServer } from '../support/server.js';

export interface ExpertBody {
  name: string;
  version: string;
  minRuntimeVersion: string;
  description: string;
  instruction: string;
  skills: Record<string, unknown>;
  delegates?: string[];
  tags?: string[];
}

export const baseSkill = { type: 'mcpStdioSkill', command: 'npx', packageName: '@cadre/base' };

export function expertBody(name: string, version = '1.0.0', extra: Partial<ExpertBody> = {}): ExpertBody {
  return {
    name,
    version,
    minRuntimeVersion: '0.1.0',
    description: `The ${name} Expert`,
    instruction: `You are ${name}.`,
    skills: { '@service/base': baseSkill },
    ...extra,
  };
}

export type ExpertAnswer = { data: { expert: Record<string, unknown> & { tags: string[]; status: string } } };

export const publish = (server: TestServer, key: string, body: ExpertBody) =>
  server.request<ExpertAnswer>('POST', '/registry/experts', { key, body });

export async function published(server: TestServer, key: string, body: ExpertBody) {
  const res = await publish(server, key, body);
  expect(res.status, res.text).toBe(200);
  return res.body.data.expert;
}

/** Path of an Expert key, `@` and `/` encoded as most HTTP clients would. */
export const keyPath = (key: string, suffix = '') => `/registry/experts/${encodeURIComponent(key)}${suffix}`;

export const getExpert = (server: TestServer, key: string) =>
  server.request<ExpertAnswer>('GET', keyPath(key));

export const tagsOf = async (server: TestServer, key: string): Promise<string[] | number> => {
  const res = await getExpert(server, key);
  return res.status === 200 ? res.body.data.expert.tags : res.status;
};

export type VersionsAnswer = {
  data: { versions: Array<{ version: string; tags: string[] }>; latest: string };
  meta: { total: number };
};

export const versionsOf = (server: TestServer, name: string) =>
  server.request<VersionsAnswer>('GET', keyPath(name, '/versions'));

/** Versions holding `latest` according to the versions listing (must be exactly one while any exist). */
export async function latestHolders(server: TestServer, name: string): Promise<string[]> {
  const res = await versionsOf(server, name);
  if (res.status === 404) return [];
  expect(res.status).toBe(200);
  return res.body.data.versions.filter((v) => v.tags.includes('latest')).map((v) => v.version);
}

export const expectStatus = (res: HttpResult, status: number) => expect(res.status, res.text).toBe(status);

let counter = 0;
/** A fresh unscoped Expert name. */
export const uniqueName = (prefix = 'expert') =>
  `${prefix}-${process.pid}-${Date.now().toString(36)}-${counter++}`;
