/**
 * Maps value paths of a TOML document back to where they are written. smol-toml gives positions
 * only for syntax errors; semantic errors (from zod) come with a path such as
 * ["experts", "writer", "skills", "gh", "command"], which this scanner turns into line and column.
 * It runs only on text smol-toml has already accepted, so it can be lenient about grammar.
 */
export type PathSegment = string | number;

type Span = { offset: number; length: number };

export type Location = {
  /** Where the key (or array element, or table header name) is written. */
  key: Span;
  /** Where the value starts (absent for tables defined by a header). */
  value?: Span;
};

export class TomlLocator {
  private readonly entries = new Map<string, Location>();
  private readonly lineStarts: number[] = [0];

  constructor(private readonly text: string) {
    for (let i = 0; i < text.length; i++) if (text[i] === '\n') this.lineStarts.push(i + 1);
    new Scanner(text, this.entries).run();
  }

  /** The location recorded for exactly this path, if any. */
  find(path: readonly PathSegment[]): Location | undefined {
    return this.entries.get(pathId(path));
  }

  /** The location of the path or of its nearest written ancestor (defaults have no location). */
  nearest(path: readonly PathSegment[]): { location: Location; exact: boolean } | undefined {
    for (let n = path.length; n > 0; n--) {
      const location = this.find(path.slice(0, n));
      if (location) return { location, exact: n === path.length };
    }
    return undefined;
  }

  lineColumn(offset: number): { line: number; column: number } {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.lineStarts[mid] ?? 0) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - (this.lineStarts[lo] ?? 0) + 1 };
  }

  lineText(line: number): string {
    const start = this.lineStarts[line - 1] ?? 0;
    const end = this.lineStarts[line] ?? this.text.length;
    return this.text.slice(start, end).replace(/\r?\n$/, '');
  }
}

function pathId(path: readonly PathSegment[]): string {
  return path.map(String).join('\u0000');
}

const BARE_KEY = /[A-Za-z0-9_-]/;

class Scanner {
  private pos = 0;
  private readonly arrayTableCounts = new Map<string, number>();

  constructor(
    private readonly s: string,
    private readonly entries: Map<string, Location>,
  ) {}

  run(): void {
    let table: PathSegment[] = [];
    while (this.pos < this.s.length) {
      this.skipTrivia(true);
      if (this.pos >= this.s.length) break;
      if (this.s[this.pos] === '[') {
        table = this.header();
      } else {
        this.keyValue(table);
      }
      this.skipToLineEnd();
    }
  }

  private header(): PathSegment[] {
    const isArray = this.s[this.pos + 1] === '[';
    this.pos += isArray ? 2 : 1;
    this.skipSpaces();
    const start = this.pos;
    const keys = this.dottedKey();
    this.skipSpaces();
    this.pos += isArray ? 2 : 1;
    let path: PathSegment[] = keys.map((k) => k.name);
    this.recordParents(path, keys);
    if (isArray) {
      this.record(path, { key: keys[keys.length - 1]?.span ?? { offset: start, length: 1 } });
      const id = pathId(path);
      const index = this.arrayTableCounts.get(id) ?? 0;
      this.arrayTableCounts.set(id, index + 1);
      path = [...path, index];
    }
    // The last segment names the table; errors about it (bad Expert name, missing key) point there.
    this.record(path, { key: keys[keys.length - 1]?.span ?? { offset: start, length: 1 } });
    return path;
  }

  private recordParents(path: PathSegment[], keys: { span: Span }[]): void {
    for (let n = 1; n < path.length; n++) this.record(path.slice(0, n), { key: keys[n - 1]!.span });
  }

  private keyValue(prefix: PathSegment[]): void {
    const keys = this.dottedKey();
    if (keys.length === 0) {
      this.pos++; // not a key: never loop forever on text we cannot read
      return;
    }
    const path = [...prefix, ...keys.map((k) => k.name)];
    for (let n = 1; n < keys.length; n++)
      this.record(path.slice(0, prefix.length + n), { key: keys[n - 1]!.span });
    this.skipSpaces();
    if (this.s[this.pos] === '=') this.pos++;
    this.skipSpaces();
    const last = keys[keys.length - 1]!;
    const valueStart = this.pos;
    this.value(path);
    this.record(path, { key: last.span, value: { offset: valueStart, length: this.pos - valueStart } });
  }

  private value(path: PathSegment[]): void {
    const c = this.s[this.pos];
    if (c === '{') {
      this.pos++;
      for (;;) {
        this.skipTrivia(true);
        if (this.pos >= this.s.length || this.s[this.pos] === '}') break;
        this.keyValue(path);
        this.skipTrivia(true);
        if (this.s[this.pos] === ',') this.pos++;
      }
      this.pos++;
    } else if (c === '[') {
      this.pos++;
      for (let index = 0; ; index++) {
        this.skipTrivia(true);
        if (this.pos >= this.s.length || this.s[this.pos] === ']') break;
        const start = this.pos;
        this.value([...path, index]);
        const span = { offset: start, length: this.pos - start };
        this.record([...path, index], { key: span, value: span });
        this.skipTrivia(true);
        if (this.s[this.pos] === ',') this.pos++;
      }
      this.pos++;
    } else if (c === '"' || c === "'") {
      this.string();
    } else {
      while (this.pos < this.s.length && !/[,\]}\s#]/.test(this.s[this.pos]!)) this.pos++;
    }
  }

  private dottedKey(): { name: string; span: Span }[] {
    const keys: { name: string; span: Span }[] = [];
    for (;;) {
      this.skipSpaces();
      const start = this.pos;
      let name: string;
      const c = this.s[this.pos];
      if (c === '"' || c === "'") {
        name = this.string();
      } else {
        while (this.pos < this.s.length && BARE_KEY.test(this.s[this.pos]!)) this.pos++;
        name = this.s.slice(start, this.pos);
        if (name === '') return keys;
      }
      keys.push({ name, span: { offset: start, length: this.pos - start } });
      this.skipSpaces();
      if (this.s[this.pos] !== '.') return keys;
      this.pos++;
    }
  }

  /** Reads any of the four TOML string forms and returns its (unescaped) content. */
  private string(): string {
    const quote = this.s[this.pos]!;
    const multi = this.s.startsWith(quote.repeat(3), this.pos);
    const delimiter = multi ? quote.repeat(3) : quote;
    const start = this.pos;
    this.pos += delimiter.length;
    while (this.pos < this.s.length) {
      if (quote === '"' && this.s[this.pos] === '\\') {
        this.pos += 2;
        continue;
      }
      if (this.s.startsWith(delimiter, this.pos)) {
        this.pos += delimiter.length;
        // A multi-line string may end with up to two extra quotes of content.
        while (multi && this.s[this.pos] === quote) this.pos++;
        break;
      }
      this.pos++;
    }
    const raw = this.s.slice(start, this.pos);
    if (quote === "'") return raw.slice(delimiter.length, raw.length - delimiter.length);
    try {
      return JSON.parse(multi ? JSON.stringify(raw.slice(3, -3)) : raw) as string;
    } catch {
      // TOML escapes JSON lacks (\e, \U with eight hex digits): close enough for locating keys.
      return raw.slice(delimiter.length, raw.length - delimiter.length);
    }
  }

  private record(path: PathSegment[], location: Location): void {
    const id = pathId(path);
    // The first place a path is written is where its definition starts.
    if (!this.entries.has(id)) this.entries.set(id, location);
  }

  private skipSpaces(): void {
    while (this.s[this.pos] === ' ' || this.s[this.pos] === '\t') this.pos++;
  }

  private skipTrivia(newlines: boolean): void {
    for (;;) {
      const c = this.s[this.pos];
      if (c === ' ' || c === '\t' || (newlines && (c === '\n' || c === '\r'))) this.pos++;
      else if (c === '#') this.skipComment();
      else return;
    }
  }

  private skipComment(): void {
    while (this.pos < this.s.length && this.s[this.pos] !== '\n') this.pos++;
  }

  private skipToLineEnd(): void {
    this.skipTrivia(false);
    if (this.s[this.pos] === '\r') this.pos++;
    if (this.s[this.pos] === '\n') this.pos++;
  }
}
