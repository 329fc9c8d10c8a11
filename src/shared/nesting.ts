/**
 * True when `value` nests objects and arrays deeper than `max` levels (a scalar is 0 levels, `[]` is 1).
 * Iterative, so a value of any depth is measured without recursion (JSON.parse builds values far deeper
 * than JSON.stringify, structuredClone or a recursive walk can take); it stops at the first level past `max`.
 */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 1 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (typeof item.value !== 'object' || item.value === null) continue;
    if (item.depth > max) return true;
    for (const child of Object.values(item.value)) stack.push({ value: child, depth: item.depth + 1 });
  }
  return false;
}
