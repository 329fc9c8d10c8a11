// A high surrogate not followed by a low one, or a low one not preceded by a high one (code units, no `u`).
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/**
 * `text` with every lone surrogate replaced by U+FFFD, which is what encoding it as UTF-8 stores (the
 * database keeps UTF-8): normalizing before writing lets an answer built from the input match the stored row.
 */
function wellFormed(text: string): string {
  return LONE_SURROGATE.test(text) ? text.replace(LONE_SURROGATES, '\uFFFD') : text;
}

/** `value` (JSON-like: plain objects, arrays, primitives) with every string, keys included, well formed. */
export function wellFormedDeep<T>(value: T): T {
  if (typeof value === 'string') return wellFormed(value) as T;
  if (Array.isArray(value)) return value.map(wellFormedDeep) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [wellFormed(key), wellFormedDeep(item)]),
    ) as T;
  }
  return value;
}
