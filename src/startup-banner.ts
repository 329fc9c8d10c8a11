/**
 * What the quick start (`npm start` on the embedded database) and `CADRE_DEV=1` print once the server listens (docs/operations.md, "Local development"): where the
 * console is, who to sign in as and where their credentials are kept, and the next command. It names the
 * bootstrap file, never a secret in it.
 */
export function startupBanner(input: {
  /** CADRE_DEV=1: the development allowances are on (else the banner says how to turn them on). */
  dev: boolean;
  consoleUrl: string;
  /** The embedded quick start's file and demo owner; absent with a server database or CADRE_BOOTSTRAP=off. */
  bootstrap?: { path: string; ownerEmail: string | undefined } | undefined;
}): string {
  const { dev, consoleUrl, bootstrap } = input;
  const lines = bootstrap?.ownerEmail
    ? [
        `Cadre is running: open ${consoleUrl} and sign in as ${bootstrap.ownerEmail}`,
        `  the password, an owner API key and the admin token are in ${bootstrap.path} (mode 0600); the password:`,
        `    node -p "require(process.argv[1]).owner.password" ${bootstrap.path}`,
      ]
    : [
        `Cadre is running: open ${consoleUrl}`,
        '  no demo organization (a server database or CADRE_BOOTSTRAP=off): create one with cadre admin org create',
      ];
  lines.push(
    '  next, from the clone: npm link, then cadre login (the CLI gets a key of its own) and cadre whoami',
    dev
      ? '  local development (CADRE_DEV=1): webhooks to this host and plain-http OAuth providers on it are allowed; never set it in production'
      : '  for webhooks to this host and plain-http OAuth providers on it, start with CADRE_DEV=1 (local development only)',
  );
  return lines.join('\n');
}
