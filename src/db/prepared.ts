import { createHash } from 'node:crypto';

/** PostgreSQL keeps 63 bytes of a name: a longer one would be cut, and two shapes could share a name. */
const MAX_NAME = 63;

/** `name_key`, or `name_` and a digest of the key when that is too long (still one name per shape). */
function statementName(name: string, key: string): string {
  const full = `${name}_${key}`;
  if (full.length <= MAX_NAME) return full;
  return `${name}_${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
}

/**
 * Named prepared statements by shape: a query whose optional parts (a cursor, a filter, a sort) change its
 * text is a statement per combination of them, each named after the parts it has and built on its first use. Named,
 * a statement is parsed and planned once per PostgreSQL connection instead of on every request; built once,
 * no request pays for building its SQL (docs/performance.md).
 */
export function preparedShapes<Shape extends Record<string, boolean | string>, Statement>(
  name: string,
  build: (shape: Shape, name: string) => Statement,
): (shape: Shape) => Statement {
  const built = new Map<string, Statement>();
  return (shape) => {
    // A flag names itself when set; a choice (a sort column) names its value.
    const parts = Object.entries(shape)
      .flatMap(([part, value]) => (typeof value === 'string' ? [`${part}_${value}`] : value ? [part] : []))
      .join('_');
    const key = parts || 'plain';
    let statement = built.get(key);
    if (!statement) {
      statement = build(shape, statementName(name, key));
      built.set(key, statement);
    }
    return statement;
  };
}
