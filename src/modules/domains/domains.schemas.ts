import { parse } from 'tldts';
import { z } from 'zod';

/**
 * A name on the Public Suffix List (tldts ships it): an ICANN suffix (`com`, `co.uk`) or a private one where
 * anyone can get a name (`github.io`, `pages.dev`). Claiming one would route everyone under it to one
 * organization's provider. Names under an unlisted top-level domain are not suffixes here.
 */
function isPublicSuffix(name: string): boolean {
  const parsed = parse(name, { allowPrivateDomains: true });
  return parsed.publicSuffix === name && (parsed.isIcann === true || parsed.isPrivate === true);
}

/**
 * A domain name as claimed: lower case, no trailing dot, at least two labels, no address literal, not a public
 * suffix. Unicode names are taken in their ASCII (punycode) form, as DNS and email carry them.
 */
const domainName = z
  .string()
  .trim()
  .min(3)
  .max(253)
  .transform((value, context) => {
    const ascii = URL.canParse(`http://${value}/`) ? new URL(`http://${value}/`).hostname : '';
    const name = ascii.replace(/\.$/, '');
    if (isPublicSuffix(name)) {
      context.addIssue({
        code: 'custom',
        message: `${name} is a public suffix (such as com, co.uk or github.io), which no organization owns: claim your own domain under it, such as acme.${name}`,
      });
      return z.NEVER;
    }
    const valid =
      name.length > 0 &&
      !value.includes('/') &&
      !value.includes('@') &&
      !value.includes(':') &&
      /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/.test(name);
    if (!valid) {
      context.addIssue({ code: 'custom', message: 'must be a domain name such as acme.com' });
      return z.NEVER;
    }
    return name;
  })
  .meta({ example: 'acme.com' });

export const claimDomainBody = z.object({ domain: domainName }).strict().meta({ id: 'ClaimDomain' });
export type ClaimDomainInput = z.infer<typeof claimDomainBody>;

export const verifyDomainBody = z
  .object({
    method: z
      .enum(['dns', 'http'])
      .optional()
      .meta({ description: 'Which proof to check; unset: the DNS record, then the file' }),
  })
  .strict()
  .default({});

export const domainParams = z.object({ domainId: z.string().min(1).max(64) });

export const domainSchema = z
  .object({
    id: z.string(),
    domain: z.string(),
    status: z.enum(['pending', 'verified', 'lapsed']).meta({
      description:
        'pending: not proven yet; verified: proven and re-checked periodically; lapsed: a re-check failed and the domain routes nothing until proven again',
    }),
    method: z.enum(['dns', 'http']).nullable().meta({ description: 'How the last proof was made' }),
    dnsRecord: z.object({
      type: z.literal('TXT'),
      name: z.string().meta({ example: '_cadre-challenge.acme.com' }),
      value: z.string(),
    }),
    httpFile: z.object({
      url: z.string().meta({ example: 'https://acme.com/.well-known/cadre-domain-verification.txt' }),
      content: z.string(),
    }),
    verifiedAt: z.iso.datetime().nullable(),
    lastCheckedAt: z.iso.datetime().nullable(),
    lastError: z.string().nullable().meta({ description: 'What the last failed check found' }),
    lapsedAt: z.iso.datetime().nullable(),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'Domain' });
export type DomainRecord = z.infer<typeof domainSchema>;

export const domainListSchema = z.object({ data: z.array(domainSchema) });
