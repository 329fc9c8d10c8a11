import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline/promises';
import { noPaint, type Paint } from '../shared/config-file/format-diagnostics.js';

/**
 * Everything a command touches outside itself. Commands receive it instead of using `process`
 * directly, so tests run them in-process with their own environment, directory and output.
 */
export type CliIo = {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Whether stdout/stderr are terminals: decides colour. */
  isTTY: boolean;
  /** Asks a yes/no question; undefined when there is no terminal to ask on. */
  confirm?: (question: string) => Promise<boolean>;
  /** Opens a URL in the person's browser; false when it cannot (no desktop). */
  openUrl?: (url: string) => Promise<boolean>;
};

export function processIo(): CliIo {
  const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY);
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    isTTY: Boolean(process.stdout.isTTY && process.stderr.isTTY),
    confirm: interactive
      ? async (question) => {
          const rl = createInterface({ input: process.stdin, output: process.stderr });
          try {
            return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
          } finally {
            rl.close();
          }
        }
      : undefined,
    openUrl: async (url) => openInBrowser(url),
  };
}

/** The desktop's opener (`open`, `xdg-open` with a display, `start`); false on a headless machine. */
function openInBrowser(url: string): boolean {
  const command =
    process.platform === 'darwin'
      ? ['open', url]
      : process.platform === 'win32'
        ? ['cmd', '/c', 'start', '""', url]
        : process.env.DISPLAY || process.env.WAYLAND_DISPLAY
          ? ['xdg-open', url]
          : undefined;
  if (!command) return false;
  const child = spawn(command[0]!, command.slice(1), { stdio: 'ignore', detached: true });
  child.on('error', () => {});
  child.unref();
  return true;
}

const ansi = (code: number) => (s: string) => `\u001b[${code}m${s}\u001b[0m`;

/** Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org). */
export function paintFor(io: CliIo): Paint {
  const noColor = io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '';
  if (!io.isTTY || noColor) return noPaint;
  return { red: ansi(31), yellow: ansi(33), cyan: ansi(36), bold: ansi(1), dim: ansi(2) };
}

export function printLine(write: (text: string) => void, text = ''): void {
  write(`${text}\n`);
}

export function printJson(io: CliIo, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}
