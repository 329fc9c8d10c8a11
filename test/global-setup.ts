import { execFileSync } from 'node:child_process';

/** Process-level tests run the built service and CLI exactly as users do: build `dist/` once per run. */
export function setup(): void {
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
}
