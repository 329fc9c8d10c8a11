/**
 * The parts of SCIM 2.0's protocol (RFC 7644) every resource shares: schema URNs, the error answer, filters,
 * list answers and versions. Kept apart from the services so each reads as Cadre's rules only.
 */

export const SCHEMA = {
  user: 'urn:ietf:params:scim:schemas:core:2.0:User',
  group: 'urn:ietf:params:scim:schemas:core:2.0:Group',
  listResponse: 'urn:ietf:params:scim:api:messages:2.0:ListResponse',
  patchOp: 'urn:ietf:params:scim:api:messages:2.0:PatchOp',
  error: 'urn:ietf:params:scim:api:messages:2.0:Error',
  serviceProviderConfig: 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig',
  resourceType: 'urn:ietf:params:scim:schemas:core:2.0:ResourceType',
  schema: 'urn:ietf:params:scim:schemas:core:2.0:Schema',
} as const;

export const SCIM_CONTENT_TYPE = 'application/scim+json';

/** RFC 7644 §3.12's `scimType` values Cadre answers with. */
export type ScimType =
  | 'invalidFilter'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'invalidValue'
  | 'uniqueness'
  | 'mutability'
  | 'noTarget'
  | 'tooMany';

/** A failure answered in RFC 7644's error shape (`detail`, `status` as a string, `scimType` when one fits). */
export class ScimError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly scimType?: ScimType,
  ) {
    super(detail);
  }
}

export const scimErrorBody = (status: number, detail: string, scimType?: ScimType) => ({
  schemas: [SCHEMA.error],
  status: String(status),
  ...(scimType ? { scimType } : {}),
  detail,
});

/** An equality filter on one attribute: all Cadre's lists accept (`filtering.supported` says so). */
export interface EqualityFilter {
  attribute: string;
  value: string;
}

/**
 * Parses `attr eq "value"` (RFC 7644 §3.4.2.2; the operator case-insensitive, the value a JSON string) on one
 * of `attributes` (compared case-insensitively, as attribute names are). Anything else, well-formed or not, is
 * 400 invalidFilter: an unsupported filter must not silently list everything.
 */
export function parseFilter(filter: string, attributes: readonly string[]): EqualityFilter {
  const match = /^\s*([A-Za-z][\w.:-]*)\s+eq\s+("(?:[^"\\]|\\.)*")\s*$/i.exec(filter);
  if (!match) {
    throw new ScimError(
      400,
      `Unsupported filter: only ${attributes.join(', ')} eq "value" is supported`,
      'invalidFilter',
    );
  }
  const attribute = attributes.find((name) => name.toLowerCase() === match[1]!.toLowerCase());
  if (!attribute) throw new ScimError(400, `Filtering on ${match[1]} is not supported`, 'invalidFilter');
  let value: unknown;
  try {
    value = JSON.parse(match[2]!);
  } catch {
    throw new ScimError(400, 'The filter value is not a valid string', 'invalidFilter');
  }
  return { attribute, value: value as string };
}

/** startIndex is 1-based (below 1 means 1); count 0 answers only totalResults; at most `max` per page. */
export function pageOf(query: { startIndex?: number | undefined; count?: number | undefined }, max = 200) {
  const startIndex = Math.max(1, Math.trunc(query.startIndex ?? 1));
  const count = Math.min(max, Math.max(0, Math.trunc(query.count ?? 100)));
  return { startIndex, count, offset: startIndex - 1 };
}

export const listResponse = <T>(resources: T[], totalResults: number, startIndex: number) => ({
  schemas: [SCHEMA.listResponse],
  totalResults,
  startIndex,
  itemsPerPage: resources.length,
  Resources: resources,
});

/** A resource's version as its ETag and `meta.version` (a weak tag: the representation may vary in form). */
export const etagOf = (version: number) => `W/"${version}"`;

/**
 * RFC 7644 §3.14: a write with `If-Match` applies only to the version it names (`*` to any); else 412. Without
 * the header the write applies (versions are optional for clients).
 */
export function checkIfMatch(header: string | undefined, version: number): void {
  if (header === undefined) return;
  const tags = header.split(',').map((tag) => tag.trim());
  if (tags.includes('*') || tags.includes(etagOf(version)) || tags.includes(`"${version}"`)) return;
  throw new ScimError(412, `The resource has changed: its version is ${etagOf(version)}`);
}

/** PATCH operations' names are case-insensitive in practice (Entra ID sends "Replace"). */
export const opName = (op: string) => op.toLowerCase();

/** Booleans as some providers send them ("False" in Entra ID's PATCH values). */
export function booleanOf(value: unknown, path: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw new ScimError(400, `${path} must be a boolean`, 'invalidValue');
}
