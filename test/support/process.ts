import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { track } from './leftovers.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface CadreProcess {
  child: ChildProcess;
  url: string;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** A Cadre process, recorded until it exits (test/support/leftovers.ts). */
function spawnCadre(env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: '0',
      CADRE_LOG_LEVEL: 'info',
      // A starved test machine stalls event loops for a second at times; that is not the overload under test.
      CADRE_OVERLOAD_EVENT_LOOP_DELAY_MS: '60000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid) child.once('exit', track({ kind: 'process', pid: child.pid, command: 'dist/main.js' }));
  return child;
}

/** Everything a child prints (stdout and stderr), as it arrives. */
function collectOutput(child: ChildProcess): () => string {
  let output = '';
  const append = (chunk: Buffer) => {
    output += chunk;
  };
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  return () => output;
}

/** Runs the built service expecting it to stop on its own (a refused start): its exit code and output. */
export async function runCadreToExit(
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<{ code: number | null; output: string; ms: number }> {
  const started = Date.now();
  const child = spawnCadre(env);
  const output = collectOutput(child);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  return { code, output: output(), ms: Date.now() - started };
}

/** Starts the built service (`node dist/main.js`) and waits until it says where it listens. */
export async function startCadre(env: Record<string, string>, timeoutMs = 30_000): Promise<CadreProcess> {
  const child = spawnCadre(env);
  const output = collectOutput(child);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`Cadre did not start in time:\n${output()}`));
    }, timeoutMs);
    const check = () => {
      // https:// when the process serves TLS itself (CADRE_TLS_CERT_FILE).
      const match = /"address":"(https?:\/\/127\.0\.0\.1:\d+)"/.exec(output());
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Cadre exited with ${code} before listening:\n${output()}`));
    });
  });
  return {
    child,
    url,
    output,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      const [code] = await once(child, 'exit');
      return code as number | null;
    },
  };
}
