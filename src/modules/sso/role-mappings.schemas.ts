import { z } from 'zod';
import { dataOf } from '../../http/route-kit.js';

/**
 * The roles the identity provider may give. Ownership is never given or taken by it: owners are named by
 * hand (and keep a break-glass password), so a provider's mistake cannot lock an organization out.
 */
export const MAPPED_ROLES = ['admin', 'member'] as const;
export type MappedRole = (typeof MAPPED_ROLES)[number];

const ruleSchema = z
  .strictObject({
    group: z.string().min(1).max(256).meta({
      description: "A value of the provider's groups claim (or a SCIM Group's displayName), exactly",
    }),
    role: z.enum(MAPPED_ROLES),
  })
  .meta({ id: 'RoleMappingRule' });
export type RoleMappingRule = z.infer<typeof ruleSchema>;

export const roleMappingsSchema = z
  .strictObject({
    defaultRole: z
      .enum(MAPPED_ROLES)
      .meta({ description: 'The role of a person none of whose groups a rule names' }),
    rules: z
      .array(ruleSchema)
      .max(200)
      .refine(
        (rules) => new Set(rules.map((rule) => rule.group)).size === rules.length,
        'each group may be named by one rule only',
      ),
  })
  .meta({ id: 'RoleMappings' });
export type RoleMappings = z.infer<typeof roleMappingsSchema>;

export const roleMappingsAnswer = dataOf(
  roleMappingsSchema.extend({
    updatedAt: z
      .string()
      .nullable()
      .meta({ description: 'When the rules last changed; null: never written' }),
  }),
);
