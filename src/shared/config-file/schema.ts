/**
 * The `cadre.toml` schema. Expert fields and skills come from the registry's own definition
 * (expert-definition.ts) so a file that validates here is one the registry accepts.
 */
import { z } from 'zod';
import {
  ALWAYS,
  BASE_SKILL_KEY,
  baseSkillProblem,
  baseSkillsIn,
  checkDefinitionSize,
  DEFAULT_BASE_SKILL_NAMES,
  DEFAULT_MIN_RUNTIME_VERSION,
  delegatesSchema,
  descriptionSchema,
  expertNameSchema,
  instructionSchema,
  quotedNames,
  runtimeVersionSchema,
  semverSchema,
  skillsSchema,
  tagsSchema,
} from '../expert/expert-definition.js';

/** The seven LLM provider identifiers (docs/config.md). */
export const PROVIDER_NAMES = [
  'anthropic',
  'google',
  'openai',
  'ollama',
  'azure-openai',
  'amazon-bedrock',
  'google-vertex',
] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

const RUNTIMES = ['cadre', 'cursor', 'claude-code', 'gemini'] as const;

export const CONFIG_DEFAULTS = {
  model: 'claude-sonnet-4-5',
  temperature: 0.3,
  maxSteps: 100,
  maxRetries: 5,
  timeout: 300_000,
  envPath: ['.env'],
  provider: { providerName: 'anthropic' as const },
  version: '1.0.0',
  runtime: ['cadre'] as (typeof RUNTIMES)[number][],
};

const baseUrl = z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).meta({
  description: 'Base URL of the provider API (for proxies and self-hosted gateways)',
});
const headers = z
  .record(z.string(), z.string())
  .meta({ description: 'Extra HTTP headers sent with every request to the provider' });
const text = (description: string) => z.string().min(1, 'must not be empty').meta({ description });

/** Allowed `[provider.setting]` keys per provider: docs/config.md's provider table. */
export const providerSettingSchemas = {
  anthropic: z.strictObject({ baseUrl: baseUrl.optional(), headers: headers.optional() }),
  google: z.strictObject({ baseUrl: baseUrl.optional(), headers: headers.optional() }),
  openai: z.strictObject({
    baseUrl: baseUrl.optional(),
    organization: text('OpenAI organization id').optional(),
    project: text('OpenAI project id').optional(),
    name: text('Custom provider name (for OpenAI-compatible servers)').optional(),
    headers: headers.optional(),
  }),
  ollama: z.strictObject({
    baseUrl: baseUrl.meta({ description: 'URL of the Ollama server' }).optional(),
    headers: headers.optional(),
  }),
  'azure-openai': z.strictObject({
    resourceName: text('Azure OpenAI resource name').optional(),
    apiVersion: text('Azure OpenAI API version, e.g. "2024-10-21"').optional(),
    baseUrl: baseUrl.optional(),
    headers: headers.optional(),
    useDeploymentBasedUrls: z
      .boolean()
      .meta({ description: 'Use /deployments/{model} URLs (older Azure API style)' })
      .optional(),
  }),
  'amazon-bedrock': z.strictObject({ region: text('AWS region, e.g. "us-east-1"').optional() }),
  'google-vertex': z.strictObject({
    project: text('Google Cloud project id').optional(),
    location: text('Google Cloud location, e.g. "us-central1"').optional(),
    baseUrl: baseUrl.optional(),
    headers: headers.optional(),
  }),
} satisfies Record<ProviderName, z.ZodObject>;

const providerOption = <N extends ProviderName>(name: N) =>
  z.strictObject({
    providerName: z.literal(name),
    setting: providerSettingSchemas[name]
      .optional()
      .meta({ description: `Settings of the ${name} provider; every option is optional` }),
  });

const providerSchema = z
  .discriminatedUnion('providerName', [
    providerOption('anthropic'),
    providerOption('google'),
    providerOption('openai'),
    providerOption('ollama'),
    providerOption('azure-openai'),
    providerOption('amazon-bedrock'),
    providerOption('google-vertex'),
  ])
  .meta({ description: 'The LLM provider the runtime calls' });

const runtimeName = z.enum(RUNTIMES);
const runtimeError = `must be one of ${RUNTIMES.map((r) => `"${r}"`).join(', ')}, or an array of them`;

export const expertConfigSchema = z
  .strictObject({
    version: semverSchema
      .default(CONFIG_DEFAULTS.version)
      .meta({ description: 'Semantic version published to the registry (default "1.0.0")' }),
    minRuntimeVersion: runtimeVersionSchema.default(DEFAULT_MIN_RUNTIME_VERSION).meta({
      description: `Minimum runtime release the Expert needs: "1.0.0", "1.0", "v1", "v2.1.0-beta.1" (default "${DEFAULT_MIN_RUNTIME_VERSION}")`,
    }),
    description: descriptionSchema
      .default('')
      .meta({ description: 'What the Expert does; at most 2048 characters' }),
    instruction: instructionSchema.meta({
      description: 'System instruction (required); at most 20 KB of UTF-8',
    }),
    delegates: delegatesSchema
      .default([])
      .meta({ description: 'Expert keys this Expert may delegate to: name, name@version, @scope/name@tag' }),
    runtime: z
      .union([runtimeName, z.array(runtimeName).min(1, runtimeError)], { error: runtimeError })
      .transform((value) => (typeof value === 'string' ? [value] : value))
      .default(CONFIG_DEFAULTS.runtime)
      .meta({ description: 'Compatible runtimes (default "cadre")' }),
    tags: tagsSchema
      .default([])
      .meta({ description: 'Custom tags for this version (at most 8, never "latest")' }),
    skills: skillsSchema
      .superRefine((skills, ctx) => {
        // None is fine: `cadre publish` adds one. One the file defines is checked as the registry will check
        // it (one base skill, an mcpStdioSkill), so the problem is found here, with its position.
        if (baseSkillsIn(skills, DEFAULT_BASE_SKILL_NAMES).length === 0) return;
        const problem = baseSkillProblem(skills, DEFAULT_BASE_SKILL_NAMES);
        if (problem) ctx.addIssue({ code: 'custom', path: problem.path, message: problem.message });
      })
      .default({})
      .meta({
        description:
          'Skills by name: [experts."<name>".skills."<skill>"] with a `type`; at most one base skill, named ' +
          `${quotedNames(DEFAULT_BASE_SKILL_NAMES)} (cadre publish adds "${BASE_SKILL_KEY}" when there is none)`,
      }),
  })
  .superRefine(checkDefinitionSize, ALWAYS);

export const configFileSchema = z
  .strictObject({
    model: z
      .string()
      .min(1, 'must not be empty')
      .default(CONFIG_DEFAULTS.model)
      .meta({ description: 'Model name (default "claude-sonnet-4-5")' }),
    temperature: z
      .number()
      .min(0, 'must be between 0.0 and 1.0')
      .max(1, 'must be between 0.0 and 1.0')
      .default(CONFIG_DEFAULTS.temperature)
      .meta({ description: 'Sampling temperature, 0.0 to 1.0 (default 0.3)' }),
    maxSteps: z
      .int()
      .positive('must be at least 1')
      .default(CONFIG_DEFAULTS.maxSteps)
      .meta({ description: 'Maximum steps per run (default 100)' }),
    maxRetries: z
      .int()
      .nonnegative('must be 0 or more')
      .default(CONFIG_DEFAULTS.maxRetries)
      .meta({ description: 'Maximum retry attempts per generation (default 5)' }),
    timeout: z
      .int()
      .positive('must be at least 1 millisecond')
      .default(CONFIG_DEFAULTS.timeout)
      .meta({ description: 'Timeout per generation in milliseconds (default 300000)' }),
    envPath: z
      .array(z.string().min(1, 'must not be empty'))
      .default(CONFIG_DEFAULTS.envPath)
      .meta({ description: 'Environment files to load, relative to this file (default [".env"])' }),
    provider: providerSchema.default(CONFIG_DEFAULTS.provider),
    // Names are checked beside the record, not as its key schema: a bad key would hide the Expert's own
    // problems, and every problem is reported at once.
    experts: z
      .record(z.string(), expertConfigSchema)
      .superRefine(
        (experts, context) => {
          for (const name of Object.keys(experts)) {
            const checked = expertNameSchema.safeParse(name);
            if (checked.success) continue;
            context.addIssue({
              code: 'custom',
              path: [name],
              message: checked.error.issues[0]?.message ?? 'is invalid',
              params: { invalidKey: true },
            });
          }
          // Also when an Expert's own fields are wrong: every problem is reported at once.
        },
        {
          when: (payload) =>
            typeof payload.value === 'object' && payload.value !== null && !Array.isArray(payload.value),
        },
      )
      .default({})
      .meta({ description: 'Experts by name: [experts."<name>"] or [experts."@scope/<name>"]' }),
  })
  .meta({ title: 'cadre.toml', description: 'Cadre configuration: runtime settings, LLM provider, Experts' });

export type CadreConfig = z.output<typeof configFileSchema>;
