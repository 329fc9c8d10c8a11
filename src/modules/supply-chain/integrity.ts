/**
 * An Expert version's integrity digest (docs/registry.md "Integrity"): `sha256-<base64>` of the RFC 8785
 * canonical JSON of exactly the fields a client runs. Anyone can recompute it from a record read on the
 * registry face, so these rules are the whole contract:
 *
 * - the object has exactly these seven keys: name, version, minRuntimeVersion, description, instruction,
 *   skills, delegates — never any other (tags, status, owner, dates are not part of what runs);
 * - each value is the record's, as stored and returned by `/registry` (minRuntimeVersion exactly as published,
 *   not the Perstack face's normalised "v1.0");
 * - `delegates` is always present: `[]` when the version has none (a publish without the field stores `[]`);
 * - inside `skills`, an optional field that was not given is absent (never `null`); nothing is defaulted.
 *
 * Computed once at publish and stored; rows written before the column existed are filled at start-up
 * (backfillIntegrity) and, should a read ever meet one that is not yet filled, computed on that read.
 */
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { and, asc, eq, gt, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { registryExperts, type Skills } from '../registry/index.js';

/** The run-relevant fields, the only input of the digest. */
export interface RunnableDefinition {
  name: string;
  version: string;
  minRuntimeVersion: string;
  description: string;
  instruction: string;
  skills: Skills;
  delegates?: readonly string[];
}

/** The canonical text the digest is taken over (RFC 8785). */
export function canonicalDefinition(definition: RunnableDefinition): string {
  const text = canonicalize({
    name: definition.name,
    version: definition.version,
    minRuntimeVersion: definition.minRuntimeVersion,
    description: definition.description,
    instruction: definition.instruction,
    skills: definition.skills,
    delegates: definition.delegates ?? [],
  });
  // canonicalize answers undefined only for undefined input; an object always serializes.
  if (text === undefined) throw new Error('a definition always canonicalizes');
  return text;
}

/** `sha256-<base64>` (standard base64 with padding, as npm's and Subresource Integrity's digests are). */
export function integrityOf(definition: RunnableDefinition): string {
  return `sha256-${createHash('sha256').update(canonicalDefinition(definition), 'utf8').digest('base64')}`;
}

const BATCH = 500;

/**
 * Fills `integrity` on every version stored before it existed (migration 0920 adds the column empty: a SQL
 * migration cannot run RFC 8785 canonicalization). Runs at start-up before the service listens, in batches
 * of 500 in id order, each batch its own short statement set so no long transaction holds the table. Rows are
 * immutable in every run-relevant field, so a concurrent instance filling the same row writes the same value.
 * Answers how many rows it filled.
 */
export async function backfillIntegrity(db: Db): Promise<number> {
  const e = registryExperts;
  let filled = 0;
  let after = '';
  for (;;) {
    const rows = await db
      .select({
        id: e.id,
        name: e.name,
        version: e.version,
        minRuntimeVersion: e.minRuntimeVersion,
        description: e.description,
        instruction: e.instruction,
        skills: e.skills,
        delegates: e.delegates,
      })
      .from(e)
      .where(and(isNull(e.integrity), gt(e.id, after)))
      .orderBy(asc(e.id))
      .limit(BATCH);
    if (rows.length === 0) return filled;
    await db.transaction(async (tx) => {
      for (const row of rows) {
        await tx
          .update(e)
          .set({ integrity: integrityOf(row) })
          .where(and(eq(e.id, row.id), isNull(e.integrity)));
      }
    });
    filled += rows.length;
    after = rows[rows.length - 1]?.id ?? after;
  }
}
