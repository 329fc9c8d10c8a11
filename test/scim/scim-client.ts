import { expect } from 'vitest';

/**
 * A SCIM 2.0 client written from RFC 7644, as an identity provider's provisioning connector speaks it:
 * `application/scim+json` both ways, the bearer token, ETags through `If-Match`, and list answers read
 * through `totalResults`, `startIndex`, `itemsPerPage` and `Resources`. Every answer's media type is checked.
 */
export interface ScimAnswer<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

export interface ScimResource {
  id: string;
  schemas: string[];
  meta: { resourceType: string; version: string; location: string; created: string; lastModified: string };
  [attribute: string]: unknown;
}

export interface ListResponse {
  schemas: string[];
  totalResults: number;
  startIndex: number;
  itemsPerPage: number;
  Resources: ScimResource[];
}

export interface ScimErrorBody {
  schemas: string[];
  status: string;
  scimType?: string;
  detail: string;
}

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

export class ScimClient {
  constructor(
    readonly baseUrl: string,
    private token: string,
  ) {}

  async send<T = ScimResource>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ScimAnswer<T>> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.token}`,
        accept: 'application/scim+json',
        ...(body === undefined ? {} : { 'content-type': 'application/scim+json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status !== 204) {
      expect(response.headers.get('content-type'), `${method} ${path}: ${text}`).toMatch(
        /^application\/scim\+json/,
      );
    }
    return { status: response.status, body: (text ? JSON.parse(text) : {}) as T, headers: response.headers };
  }

  createUser(userName: string, extra: Record<string, unknown> = {}) {
    return this.send('POST', '/Users', { schemas: [USER], userName, active: true, ...extra });
  }
  getUser(id: string) {
    return this.send('GET', `/Users/${id}`);
  }
  listUsers(query: { filter?: string; startIndex?: number; count?: number } = {}) {
    return this.send<ListResponse>('GET', `/Users${queryOf(query)}`);
  }
  replaceUser(id: string, user: Record<string, unknown>, ifMatch?: string) {
    return this.send(
      'PUT',
      `/Users/${id}`,
      { schemas: [USER], ...user },
      ifMatch ? { 'if-match': ifMatch } : {},
    );
  }
  patchUser(id: string, operations: unknown[], ifMatch?: string) {
    return this.send(
      'PATCH',
      `/Users/${id}`,
      { schemas: [PATCH_OP], Operations: operations },
      ifMatch ? { 'if-match': ifMatch } : {},
    );
  }
  deleteUser(id: string) {
    return this.send<Record<string, never>>('DELETE', `/Users/${id}`);
  }
  createGroup(displayName: string, memberIds: string[] = []) {
    return this.send('POST', '/Groups', {
      schemas: [GROUP],
      displayName,
      members: memberIds.map((value) => ({ value })),
    });
  }
  listGroups(query: { filter?: string; startIndex?: number; count?: number } = {}) {
    return this.send<ListResponse>('GET', `/Groups${queryOf(query)}`);
  }
  patchGroup(id: string, operations: unknown[]) {
    return this.send('PATCH', `/Groups/${id}`, { schemas: [PATCH_OP], Operations: operations });
  }
  deleteGroup(id: string) {
    return this.send<Record<string, never>>('DELETE', `/Groups/${id}`);
  }
}

function queryOf(query: Record<string, string | number | undefined>): string {
  const entries = Object.entries(query).filter(
    (entry): entry is [string, string | number] => entry[1] !== undefined,
  );
  return entries.length === 0
    ? ''
    : `?${new URLSearchParams(entries.map(([k, v]): [string, string] => [k, String(v)]))}`;
}

/** An RFC 7644 error answer: the Error schema, the status as a string, and the scimType when given. */
export function expectScimError(answer: ScimAnswer<unknown>, status: number, scimType?: string) {
  const body = answer.body as ScimErrorBody;
  expect(answer.status, JSON.stringify(body)).toBe(status);
  expect(body.schemas).toEqual([ERROR]);
  expect(body.status).toBe(String(status));
  expect(typeof body.detail).toBe('string');
  if (scimType) expect(body.scimType).toBe(scimType);
}
