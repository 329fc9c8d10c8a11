/** Exit codes: 0 success, 1 user error (bad input, bad config, 4xx), 2 server or network error. */
export const EXIT_USER = 1;
export const EXIT_SERVER = 2;

/** An error the CLI reports as one message (plus an optional hint) and an exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT_USER,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** Thrown after a command has already printed its own report (diagnostics, a failed publish). */
export class ReportedError extends Error {
  constructor(readonly exitCode: number) {
    super('reported');
    this.name = 'ReportedError';
  }
}
