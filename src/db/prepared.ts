/**
 * Named prepared statements by shape: a query whose optional parts (a cursor, a filter) change its text is a
 * statement per combination of them, each named after the parts it has and built on its first use. Named,
 * a statement is parsed and planned once per PostgreSQL connection instead of on every request; built once,
 * no request pays for building its SQL (docs/performance.md).
 */
export function preparedShapes<Shape extends Record<string, boolean>, Statement>(
  name: string,
  build: (shape: Shape, name: string) => Statement,
): (shape: Shape) => Statement {
  const built = new Map<string, Statement>();
  return (shape) => {
    const parts = Object.keys(shape)
      .filter((part) => shape[part])
      .join('_');
    const key = parts || 'plain';
    let statement = built.get(key);
    if (!statement) {
      statement = build(shape, `${name}_${key}`);
      built.set(key, statement);
    }
    return statement;
  };
}
