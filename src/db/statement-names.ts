// Every statement with parameters sent to PostgreSQL as a named statement, so each connection parses and
// plans a statement text once instead of on every call (the hot reads name themselves: ./prepared.ts; this
// names the rest, writes included, such as a change's audit row with its events).
//
// `pg` keeps, per connection, which names it has parsed: a named statement is sent as Parse once, then
// Bind/Execute. A name must always mean one text, so names are given per text, once, for the whole pool.

/** What `pg` accepts as a statement: its config form is what drizzle sends. */
interface StatementConfig {
  text?: unknown;
  name?: unknown;
  values?: unknown;
}

/**
 * Names statement texts, at most `capacity` of them: PostgreSQL keeps a named statement until its
 * connection closes, so texts beyond the cap (a statement whose text varies with its input, such as a
 * VALUES list per row) run unnamed rather than growing every connection without bound.
 */
export function createStatementNames(capacity = 500) {
  const names = new Map<string, string>();
  return (text: string): string | undefined => {
    let name = names.get(text);
    if (name === undefined && names.size < capacity) {
      name = `cadre_s${names.size + 1}`;
      names.set(text, name);
    }
    return name;
  };
}

/**
 * Wraps a pooled client's `query` so a statement with parameters and no name of its own runs by the name
 * `nameOf` gives its text. A statement without parameters stays a simple query: it may hold several
 * statements (migrations), which a named statement cannot.
 */
export function nameStatements(
  client: { query: (...args: never[]) => unknown },
  nameOf: (text: string) => string | undefined,
) {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: (...args: unknown[]) => unknown }).query = (config: unknown, ...rest: unknown[]) => {
    const statement = config as StatementConfig | null;
    // Values come in the config or as the next argument (drizzle's form).
    const values =
      typeof statement === 'object' && statement !== null ? (statement.values ?? rest[0]) : undefined;
    if (
      typeof statement?.text === 'string' &&
      statement.name === undefined &&
      Array.isArray(values) &&
      values.length > 0
    ) {
      const name = nameOf(statement.text);
      if (name !== undefined) return query({ ...statement, name }, ...rest);
    }
    return query(config, ...rest);
  };
}
