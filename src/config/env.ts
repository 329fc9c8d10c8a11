import { z } from 'zod';

const commaList = z.string().transform((value) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean),
);

const positiveInt = z.coerce.number().int().positive();

/**
 * Every environment variable Cadre reads, parsed once at start-up. README lists them all; keep the two in
 * step. Modules receive the parsed values through their dependencies and never read `process.env`.
 */
export const envSchema = z.object({
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  DATABASE_URL: z.string().url().optional(),
  REDIS_URL: z.string().url().optional(),
  CADRE_DATA_DIR: z.string().default('./.cadre-data'),
  CADRE_ADMIN_TOKEN: z.string().min(32, 'CADRE_ADMIN_TOKEN must be at least 32 characters').optional(),
  CADRE_PUBLIC_URL: z.string().url().optional(),
  CADRE_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  CADRE_BODY_LIMIT_BYTES: positiveInt.default(1024 * 1024),
  CADRE_SHUTDOWN_TIMEOUT_MS: positiveInt.default(10_000),
  CADRE_DB_POOL_SIZE: positiveInt.default(10),
  CADRE_LAST_USED_FLUSH_MS: positiveInt.default(5_000),
  CADRE_ENCRYPTION_KEYS: z.string().optional(),
  CADRE_ALLOWED_RETURN_ORIGINS: commaList.default([]),
  CADRE_REGISTRY_CACHE_ENTRIES: z.coerce.number().int().min(0).default(10_000),
  CADRE_BOOTSTRAP: z.enum(['auto', 'off']).default('auto'),
});

export type Env = z.infer<typeof envSchema>;

export function parseEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const result = envSchema.safeParse(source);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid environment:\n${lines.join('\n')}`);
  }
  return result.data;
}
