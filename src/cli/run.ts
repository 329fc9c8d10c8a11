import { type Command, CommanderError } from 'commander';
import { CliError, EXIT_SERVER, EXIT_USER, ReportedError } from './errors.js';
import { type CliIo, paintFor, printLine } from './io.js';
import { RegistryError, RegistryNetworkError } from './registry-client.js';

/** The root `cadre` command. Subcommands inherit its output and exit handling when added later. */
export function configureRoot(program: Command, io: CliIo, version: string): Command {
  return program
    .name('cadre')
    .description('Author, validate and publish Cadre Experts')
    .version(version, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
}

/** Runs the program and maps every outcome to an exit code instead of exiting the process. */
export async function runProgram(program: Command, argv: readonly string[], io: CliIo): Promise<number> {
  const paint = paintFor(io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version "errors" exit 0; usage errors are user errors.
      return error.exitCode === 0 ? 0 : EXIT_USER;
    }
    if (error instanceof ReportedError) return error.exitCode;
    if (error instanceof CliError) {
      printLine(io.stderr, `${paint.red('error')}: ${error.message}`);
      if (error.hint) printLine(io.stderr, `${paint.cyan('hint')}: ${error.hint}`);
      return error.exitCode;
    }
    if (error instanceof RegistryError) {
      printLine(
        io.stderr,
        `${paint.red('error')}: registry answered ${error.status} ${error.title}: ${error.reason}`,
      );
      return error.exitCode;
    }
    if (error instanceof RegistryNetworkError) {
      printLine(io.stderr, `${paint.red('error')}: ${error.message}`);
      if (error.hint) printLine(io.stderr, `${paint.cyan('hint')}: ${error.hint}`);
      return EXIT_SERVER;
    }
    printLine(io.stderr, `${paint.red('internal error')}: ${(error as Error).stack ?? String(error)}`);
    return EXIT_SERVER;
  }
}
