import { useQueries } from '@tanstack/react-query';
import { api, unwrap } from '../api/client.js';
import type { components } from '../api/schema.js';

type RegistryExpert = components['schemas']['RegistryExpert'];

/** Reading records at most this many at once: a page of the list, or the newest versions of a name. */
const MAX_RECORDS = 30;

/**
 * The full records of these exact keys (`name@version`). List items and version items carry no status or
 * dates of their own (their fields are fixed by the registry's API), so the console reads each shown
 * version's record: a cached public read, one per item, asked in parallel once the list has settled.
 */
export function useExpertRecords(keys: string[]): Map<string, RegistryExpert> {
  const results = useQueries({
    queries: keys.slice(0, MAX_RECORDS).map((key) => ({
      queryKey: ['expert', key],
      queryFn: async ({ signal }: { signal: AbortSignal }) =>
        unwrap(
          await api.GET('/registry/experts/{expertKey}', { params: { path: { expertKey: key } }, signal }),
        ).data.expert,
      staleTime: 30_000,
    })),
  });
  const records = new Map<string, RegistryExpert>();
  for (const result of results) if (result.data) records.set(result.data.key, result.data);
  return records;
}
