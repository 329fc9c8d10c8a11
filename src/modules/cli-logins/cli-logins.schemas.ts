import { z } from 'zod';
import { grantSchema } from '../auth/index.js';

const timestamp = z.iso.datetime().meta({ example: '2026-01-01T00:00:00.000Z' });

export const startCliLoginBody = z
  .object({
    name: z.string().trim().min(1).max(200).describe("The machine's name; the new key is named after it"),
    keyStart: z
      .string()
      .regex(/^cadre_[0-9A-Za-z]{6}$/)
      .describe("The first 12 characters of the CLI's secret"),
    keyDigest: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .describe("SHA-256 hex of the CLI's secret"),
  })
  .strict()
  .meta({ id: 'StartCliLoginRequest' });
export type StartCliLoginInput = z.infer<typeof startCliLoginBody>;

export const cliLoginStartedSchema = z
  .object({
    deviceCode: z.string().describe('Poll with it (POST /auth/cli-logins/poll); keep it secret'),
    userCode: z.string().meta({ example: 'BCDF-GHJK' }),
    verificationUrl: z.string().describe('The console page where a signed-in person approves'),
    verificationUrlComplete: z.string().describe('The same page with the code filled in'),
    expiresAt: timestamp,
    interval: z.number().int().describe('Seconds to wait between polls'),
  })
  .meta({ id: 'CliLoginStarted' });

export const pollCliLoginBody = z.object({ deviceCode: z.string().min(1).max(128) }).strict();

const status = z.enum(['pending', 'approved', 'denied', 'expired']);
export const cliLoginStatusSchema = z
  .object({
    status,
    apiKeyId: z.string().nullable().describe('The new key, once approved'),
    organization: z
      .object({ id: z.string(), slug: z.string(), name: z.string() })
      .nullable()
      .describe('Where the key acts, once approved'),
  })
  .meta({ id: 'CliLoginStatus' });

export const cliLoginSchema = z
  .object({ userCode: z.string(), name: z.string(), status, createdAt: timestamp, expiresAt: timestamp })
  .meta({ id: 'CliLogin' });

export const approveCliLoginBody = z
  .object({
    grants: grantSchema,
    expiresIn: z.number().int().min(60).max(157_680_000).optional().describe('Seconds; absent: never'),
  })
  .strict()
  .meta({ id: 'ApproveCliLoginRequest' });
export type ApproveCliLoginInput = z.infer<typeof approveCliLoginBody>;
