/**
 * Delegation between Experts of the same file: which delegates name an Expert defined here (so it
 * must be published first), the publish order, and cycles (which no order can satisfy).
 */

import { tryParseExpertKey } from '../expert/expert-definition.js';
import { own } from '../own.js';
import type { CadreConfig } from './schema.js';

type ExpertsOnly = Pick<CadreConfig, 'experts'>;

/** Names of same-file Experts that `name` delegates to, with the index of each delegate entry. */
export function localDelegates(config: ExpertsOnly, name: string): { target: string; index: number }[] {
  const expert = own(config.experts, name);
  if (!expert) return [];
  const out: { target: string; index: number }[] = [];
  expert.delegates.forEach((delegate, index) => {
    const parsed = tryParseExpertKey(delegate);
    if (!parsed.ok) return;
    const target = own(config.experts, parsed.key.name);
    if (!target) return;
    const { version, tag } = parsed.key;
    // A delegate pinned to another version refers to one already in the registry, not to this file.
    const refersToFile =
      (version === undefined && tag === undefined) ||
      version === target.version ||
      tag === 'latest' ||
      (tag !== undefined && target.tags.includes(tag));
    if (refersToFile) out.push({ target: parsed.key.name, index });
  });
  return out;
}

/** A delegation cycle among the file's Experts, as a list of names with the first repeated last. */
export function findDelegationCycle(config: ExpertsOnly): string[] | undefined {
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (name: string): string[] | undefined => {
    if (state.get(name) === 'done') return undefined;
    if (state.get(name) === 'visiting') return [...stack.slice(stack.indexOf(name)), name];
    state.set(name, 'visiting');
    stack.push(name);
    for (const { target } of localDelegates(config, name)) {
      const cycle = visit(target);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(name, 'done');
    return undefined;
  };
  for (const name of Object.keys(config.experts)) {
    const cycle = visit(name);
    if (cycle) return cycle;
  }
  return undefined;
}

export class DelegationCycleError extends Error {
  constructor(readonly cycle: string[]) {
    super(`delegation cycle: ${cycle.join(' → ')}`);
    this.name = 'DelegationCycleError';
  }
}

/**
 * The selected Experts (all when `selected` is empty) plus the same-file Experts they delegate
 * to, transitively, ordered so every Expert comes after the ones it delegates to. Within that
 * constraint the file's order is kept, so output is stable.
 */
export function publishOrder(config: ExpertsOnly, selected: readonly string[] = []): string[] {
  const cycle = findDelegationCycle(config);
  if (cycle) throw new DelegationCycleError(cycle);
  const roots = selected.length > 0 ? selected : Object.keys(config.experts);
  const ordered: string[] = [];
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const { target } of localDelegates(config, name)) visit(target);
    ordered.push(name);
  };
  for (const name of roots) visit(name);
  return ordered;
}
