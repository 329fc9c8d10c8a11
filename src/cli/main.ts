#!/usr/bin/env node
import { createRequire } from 'node:module';
import { Command } from 'commander';
import { registerAdminCommands } from './admin-commands.js';
import { registerAuditCommand } from './audit-command.js';
import { registerConfigCommands } from './config-commands.js';
import { registerEventsCommand } from './events-command.js';
import { registerIntegrationCommands } from './integrations-commands.js';
import { processIo } from './io.js';
import { registerKeysCommands } from './keys-commands.js';
import { registerLoginCommands } from './login-commands.js';
import { registerMcpCommands } from './mcp-commands.js';
import { registerMembersCommands } from './members-commands.js';
import { registerOrganizationCommands } from './organization-commands.js';
import { registerProjectCommands } from './projects-commands.js';
import { registerRegistryCommands } from './registry-commands.js';
import { configureRoot, runProgram } from './run.js';
import { registerWebhooksCommands } from './webhooks-commands.js';

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };
const io = processIo();
const program = configureRoot(new Command(), io, version);

// One line per command group; each lives in its own file.
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

process.exitCode = await runProgram(program, process.argv.slice(2), io);
