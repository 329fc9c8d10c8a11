import type { Command } from 'commander';
import { registerDiffCommand } from './diff-command.js';
import { registerExpertsCommands } from './experts-commands.js';
import { type CliIo, processIo } from './io.js';
import { registerLockCommands } from './lock-command.js';
import { registerPolicyCommands } from './policy-commands.js';
import { registerPublishCommand } from './publish-command.js';

/**
 * `cadre publish`, `cadre experts …`, `cadre diff`, `cadre lock`, `cadre verify`, and the publish policy with its
 * approvals (`cadre policy …`, `cadre approvals …`): everything about the registry.
 */
export function registerRegistryCommands(program: Command, io: CliIo = processIo()): void {
  registerPublishCommand(program, io);
  registerExpertsCommands(program, io);
  registerDiffCommand(program, io);
  registerLockCommands(program, io);
  registerPolicyCommands(program, io);
}
