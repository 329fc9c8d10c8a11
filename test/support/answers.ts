import type { z } from 'zod';

/** `{ data: … }`: the answer of a route whose success schema is `dataOf(schema)` (src/http/route-kit.ts). */
export type DataOf<T extends z.ZodType> = { data: z.infer<T> };
