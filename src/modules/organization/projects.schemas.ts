import { z } from 'zod';

const slugSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(
    /^[a-z0-9][a-z0-9_-]*$/,
    'use lowercase letters, digits, "-" and "_", starting with a letter or digit',
  );
const nameSchema = z.string().trim().min(1).max(200);
const id = z.string().min(1).max(64);
const timestamp = z.iso.datetime().meta({ example: '2026-01-01T00:00:00.000Z' });

export const createProjectBody = z.object({ slug: slugSchema, name: nameSchema }).strict().meta({
  id: 'CreateProjectRequest',
  description: 'The project gets the environments production and development',
});
export const updateProjectBody = z
  .object({ slug: slugSchema.optional(), name: nameSchema.optional() })
  .strict()
  .refine((body) => body.slug !== undefined || body.name !== undefined, 'give a new slug, name or both')
  .meta({ id: 'UpdateProjectRequest' });
/** An environment's name is a slug (`production`, `staging`), as the admin API has it. */
export const environmentBody = z.object({ name: slugSchema }).strict().meta({ id: 'EnvironmentRequest' });
export const agentBody = z.object({ name: nameSchema }).strict().meta({ id: 'AgentRequest' });

export const projectParams = z.object({ projectId: id });
export const environmentParams = z.object({ projectId: id, environmentId: id });
export const agentParams = z.object({ projectId: id, agentId: id });
export const cascadeQuery = z
  .object({
    cascade: z
      .enum(['true', 'false'])
      .optional()
      .meta({
        description:
          'true: disconnect the connections and revoke the API keys that name it, then delete (audited); ' +
          'otherwise a delete they depend on answers 409 naming them',
      }),
  })
  .strict();

export const projectEnvironmentSchema = z
  .object({ id: z.string(), projectId: z.string(), name: z.string(), createdAt: timestamp })
  .meta({ id: 'ProjectEnvironment' });
export const projectAgentSchema = z
  .object({ id: z.string(), projectId: z.string(), name: z.string(), createdAt: timestamp })
  .meta({ id: 'ProjectAgent' });
