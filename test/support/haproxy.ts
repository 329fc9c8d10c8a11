import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { findPrograms, missingProgramMessage } from '../../scripts/test-programs.mjs';
import { track } from './leftovers.js';
import { freePort } from './servers.js';

const HAPROXY_CONFIG = fileURLToPath(new URL('../../deploy/haproxy.cfg', import.meta.url));

export interface Haproxy {
  url: string;
  /** Each server's state as HAProxy sees it (`UP`, `DOWN`, `MAINT`, …), by server name. */
  states(): Promise<Record<string, string>>;
  /** Waits until every named server is in `state` (bounded). */
  waitFor(state: string, servers: string[], timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** HAProxy on loopback running deploy/haproxy.cfg in front of `servers` (cadre1..cadre3, host:port). */
export async function startHaproxy(servers: [string, string, string]): Promise<Haproxy> {
  const binary = findPrograms().haproxy;
  if (!binary) throw new Error(missingProgramMessage('haproxy'));
  const [port, statsPort] = [await freePort(), await freePort()];
  const child: ChildProcess = spawn(binary, ['-db', '-f', HAPROXY_CONFIG], {
    env: {
      PATH: process.env.PATH ?? '',
      CADRE_LB_BIND: `127.0.0.1:${port}`,
      CADRE_LB_STATS_BIND: `127.0.0.1:${statsPort}`,
      CADRE_1: servers[0],
      CADRE_2: servers[1],
      CADRE_3: servers[2],
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const untrack = track({ kind: 'process', pid: child.pid!, command: HAPROXY_CONFIG });
  let output = '';
  child.stdout!.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    output += chunk;
  });
  const states = async () => {
    const response = await fetch(`http://127.0.0.1:${statsPort}/stats;csv`);
    const rows = (await response.text()).split('\n').map((line) => line.split(','));
    const header = rows[0]!;
    const [name, status] = [header.indexOf('svname'), header.indexOf('status')];
    return Object.fromEntries(
      rows
        .filter((row) => row[0] === 'cadres' && row[name]?.startsWith('cadre'))
        .map((row) => [row[name], row[status]]),
    ) as Record<string, string>;
  };
  const waitFor = async (state: string, names: string[], timeoutMs = 15_000) => {
    const deadline = Date.now() + timeoutMs;
    let last: Record<string, string> = {};
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`haproxy exited:\n${output}`);
      last = await states().catch(() => ({}));
      if (names.every((server) => last[server] === state)) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(
      `haproxy servers ${names.join(', ')} not ${state} in time: ${JSON.stringify(last)}\n${output}`,
    );
  };
  return {
    url: `http://127.0.0.1:${port}`,
    states,
    waitFor,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await once(child, 'exit');
      }
      untrack();
    },
  };
}
