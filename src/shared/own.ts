/**
 * `record[key]` when `key` is the record's own property, else undefined. Every lookup by a name a user chose
 * (a skill, a tool, an Expert) goes through this or a Map: `record[name]` would find the members every object
 * inherits (`constructor`, `toString`, `valueOf`…), so a tool named `constructor` would look as if it were
 * already there.
 */
export function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
