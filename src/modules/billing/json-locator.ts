import type { Location, PathSegment } from '../../shared/config-file/toml-locator.js';

/**
 * Maps value paths of a JSON document back to where they are written, as TomlLocator does for TOML, so a
 * JSON plan catalogue's problems carry line and column too. It runs only on text JSON.parse has accepted.
 */
export class JsonLocator {
  private readonly entries = new Map<string, Location>();
  private readonly lineStarts: number[] = [0];
  private pos = 0;

  constructor(private readonly text: string) {
    for (let i = 0; i < text.length; i++) if (text[i] === '\n') this.lineStarts.push(i + 1);
    this.value([], { offset: 0, length: 1 });
  }

  nearest(path: readonly PathSegment[]): { location: Location; exact: boolean } | undefined {
    for (let n = path.length; n > 0; n--) {
      const location = this.entries.get(path.slice(0, n).map(String).join('\u0000'));
      if (location) return { location, exact: n === path.length };
    }
    return undefined;
  }

  lineColumn(offset: number): { line: number; column: number } {
    let line = 0;
    while (line + 1 < this.lineStarts.length && (this.lineStarts[line + 1] ?? 0) <= offset) line++;
    return { line: line + 1, column: offset - (this.lineStarts[line] ?? 0) + 1 };
  }

  lineText(line: number): string {
    const start = this.lineStarts[line - 1] ?? 0;
    const end = this.lineStarts[line] ?? this.text.length;
    return this.text.slice(start, end).replace(/\r?\n$/, '');
  }

  private skip(): void {
    while (/\s/.test(this.text[this.pos] ?? '')) this.pos++;
  }

  /** A value at `path` whose key (or array element) is at `key`; records both spans. */
  private value(path: PathSegment[], key: { offset: number; length: number }): void {
    this.skip();
    const start = this.pos;
    const c = this.text[this.pos];
    if (c === '{') {
      this.pos++;
      this.skip();
      while (this.text[this.pos] !== '}' && this.pos < this.text.length) {
        this.skip();
        const keyStart = this.pos;
        const name = this.string();
        const keySpan = { offset: keyStart, length: this.pos - keyStart };
        this.skip();
        this.pos++; // ':'
        this.value([...path, name], keySpan);
        this.skip();
        if (this.text[this.pos] === ',') this.pos++;
        this.skip();
      }
      this.pos++;
    } else if (c === '[') {
      this.pos++;
      let index = 0;
      this.skip();
      while (this.text[this.pos] !== ']' && this.pos < this.text.length) {
        this.skip();
        this.value([...path, index++], { offset: this.pos, length: 1 });
        this.skip();
        if (this.text[this.pos] === ',') this.pos++;
        this.skip();
      }
      this.pos++;
    } else if (c === '"') this.string();
    else while (this.pos < this.text.length && !/[\s,\]}]/.test(this.text[this.pos] ?? '')) this.pos++;
    if (path.length > 0) {
      const length = Math.max(1, this.pos - start);
      const elementKey = typeof path[path.length - 1] === 'number' ? { offset: start, length } : key;
      this.entries.set(path.map(String).join('\u0000'), {
        key: elementKey,
        value: { offset: start, length },
      });
    }
  }

  private string(): string {
    const start = this.pos;
    this.pos++;
    while (this.pos < this.text.length && this.text[this.pos] !== '"')
      this.pos += this.text[this.pos] === '\\' ? 2 : 1;
    this.pos++;
    return JSON.parse(this.text.slice(start, this.pos)) as string;
  }
}
