import { SCHEMA, ScimError } from './scim-protocol.js';

/**
 * SCIM's discovery endpoints (RFC 7644 §4): what this service provider supports, which resource types it
 * serves and the attributes of their schemas (RFC 7643 §5–7). They state only what Cadre keeps and does.
 */

const attribute = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  type: 'string',
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...extra,
});

const USER_SCHEMA = {
  id: SCHEMA.user,
  name: 'User',
  description: 'A member of the organization',
  attributes: [
    attribute('userName', { required: true, uniqueness: 'server' }),
    attribute('externalId', { caseExact: true }),
    attribute('displayName'),
    attribute('name', {
      type: 'complex',
      subAttributes: [attribute('givenName'), attribute('familyName')],
    }),
    attribute('emails', {
      type: 'complex',
      multiValued: true,
      mutability: 'immutable',
      subAttributes: [attribute('value'), attribute('primary', { type: 'boolean' })],
    }),
    attribute('active', { type: 'boolean' }),
    attribute('groups', {
      type: 'complex',
      multiValued: true,
      mutability: 'readOnly',
      subAttributes: [
        attribute('value', { mutability: 'readOnly' }),
        attribute('display', { mutability: 'readOnly' }),
      ],
    }),
  ],
};

const GROUP_SCHEMA = {
  id: SCHEMA.group,
  name: 'Group',
  description: 'A set of members; its displayName is what the role-mapping rules name',
  attributes: [
    attribute('displayName', { required: true, uniqueness: 'server' }),
    attribute('externalId', { caseExact: true }),
    attribute('members', {
      type: 'complex',
      multiValued: true,
      subAttributes: [
        attribute('value', { mutability: 'immutable' }),
        attribute('display', { mutability: 'readOnly' }),
      ],
    }),
  ],
};

export function discoveryDocuments(baseUrl: () => string) {
  const meta = (resourceType: string, path: string) => ({ resourceType, location: `${baseUrl()}${path}` });
  const resourceTypes = () => [
    {
      schemas: [SCHEMA.resourceType],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      schema: SCHEMA.user,
      meta: meta('ResourceType', '/ResourceTypes/User'),
    },
    {
      schemas: [SCHEMA.resourceType],
      id: 'Group',
      name: 'Group',
      endpoint: '/Groups',
      schema: SCHEMA.group,
      meta: meta('ResourceType', '/ResourceTypes/Group'),
    },
  ];
  const schemas = () =>
    [USER_SCHEMA, GROUP_SCHEMA].map((schema) => ({
      schemas: [SCHEMA.schema],
      ...schema,
      meta: meta('Schema', `/Schemas/${schema.id}`),
    }));
  const list = <T>(resources: T[]) => ({
    schemas: [SCHEMA.listResponse],
    totalResults: resources.length,
    startIndex: 1,
    itemsPerPage: resources.length,
    Resources: resources,
  });
  return {
    serviceProviderConfig: () => ({
      schemas: [SCHEMA.serviceProviderConfig],
      patch: { supported: true },
      bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
      filter: { supported: true, maxResults: 200 },
      changePassword: { supported: false },
      sort: { supported: false },
      etag: { supported: true },
      authenticationSchemes: [
        {
          type: 'oauthbearertoken',
          name: 'Bearer token',
          description: "The organization's SCIM token (docs/scim.md)",
          primary: true,
        },
      ],
      meta: meta('ServiceProviderConfig', '/ServiceProviderConfig'),
    }),
    resourceTypes: () => list(resourceTypes()),
    resourceType(id: string) {
      const found = resourceTypes().find((type) => type.id === id);
      if (!found) throw new ScimError(404, `Resource type ${id} not found`);
      return found;
    },
    schemas: () => list(schemas()),
    schema(id: string) {
      const found = schemas().find((schema) => schema.id === id);
      if (!found) throw new ScimError(404, `Schema ${id} not found`);
      return found;
    },
  };
}
