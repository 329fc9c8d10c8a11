import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Command } from 'commander';
import { afterAll } from 'vitest';
import { registerAdminCommands } from '../../src/cli/admin-commands.js';
import { registerAuditCommand } from '../../src/cli/audit-command.js';
import { registerConfigCommands } from '../../src/cli/config-commands.js';
import { registerEventsCommand } from '../../src/cli/events-command.js';
import { registerIntegrationCommands } from '../../src/cli/integrations-commands.js';
import type { CliIo } from '../../src/cli/io.js';
import { registerKeysCommands } from '../../src/cli/keys-commands.js';
import { registerLoginCommands } from '../../src/cli/login-commands.js';
import { registerMcpCommands } from '../../src/cli/mcp-commands.js';
import { registerMembersCommands } from '../../src/cli/members-commands.js';
import { registerOrganizationCommands } from '../../src/cli/organization-commands.js';
import { registerProjectCommands } from '../../src/cli/projects-commands.js';
import { registerRegistryCommands } from '../../src/cli/registry-commands.js';
import { configureRoot, runProgram } from '../../src/cli/run.js';
import { registerWebhooksCommands } from '../../src/cli/webhooks-commands.js';

export type CliRun = { code: number; stdout: string; stderr: string };

/** Runs the cadre command tree in-process with its own directory, environment and output. */
export async function runCli(
  argv: string[],
  options: {
    cwd: string;
    env?: Record<string, string>;
    isTTY?: boolean;
    confirm?: CliIo['confirm'];
    openUrl?: CliIo['openUrl'];
  },
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    env: options.env ?? {},
    cwd: options.cwd,
    isTTY: options.isTTY ?? false,
    confirm: options.confirm,
    openUrl: options.openUrl,
  };
  const program = configureRoot(new Command(), io, '0.0.0-test');
  registerConfigCommands(program, io);
  registerRegistryCommands(program, io);
  registerAdminCommands(program, io);
  registerAuditCommand(program, io);
  registerOrganizationCommands(program, io);
  registerMembersCommands(program, io);
  registerKeysCommands(program, io);
  registerLoginCommands(program, io);
  registerProjectCommands(program, io);
  registerIntegrationCommands(program, io);
  registerWebhooksCommands(program, io);
  registerEventsCommand(program, io);
  registerMcpCommands(program, io);
  const code = await runProgram(program, argv, io);
  return { code, stdout, stderr };
}

const projects: string[] = [];
// Registered on the importing test file: its temporary projects are removed when its tests are done.
afterAll(() => {
  for (const dir of projects.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A temporary directory holding the given files (paths relative to it), removed after the file's tests. */
export function tempProject(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'cadre-cli-'));
  projects.push(dir);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}
