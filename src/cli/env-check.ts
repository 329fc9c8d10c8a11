import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { CadreConfig } from '../shared/config-file/index.js';

export type EnvWarning = { message: string };

// Only the names matter here: which variables an env file would define.
const ENV_LINE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/;

/**
 * Problems a run would hit later: envPath files that do not exist, and variables a skill lists in
 * `requiredEnv` that neither the environment nor any envPath file defines. envPath entries are
 * relative to the config file, so a command gives the same answer from any directory.
 */
export function checkEnvironment(
  config: CadreConfig,
  configPath: string,
  env: Record<string, string | undefined>,
): EnvWarning[] {
  const warnings: EnvWarning[] = [];
  const defined = new Set(Object.keys(env).filter((k) => env[k] !== undefined));
  for (const entry of config.envPath) {
    const file = resolve(dirname(configPath), entry);
    if (!existsSync(file)) {
      warnings.push({ message: `envPath file ${entry} does not exist (looked for ${file})` });
      continue;
    }
    for (const line of readFileSync(file, 'utf8').split(/\r?\n/)) {
      const match = ENV_LINE.exec(line);
      if (match?.[1]) defined.add(match[1]);
    }
  }
  for (const [expertName, expert] of Object.entries(config.experts)) {
    for (const [skillName, skill] of Object.entries(expert.skills)) {
      if (skill.type !== 'mcpStdioSkill') continue;
      for (const variable of skill.requiredEnv ?? []) {
        if (!defined.has(variable)) {
          warnings.push({
            message: `${variable} (required by skill "${skillName}" of Expert "${expertName}") is not set in the environment or in any envPath file`,
          });
        }
      }
    }
  }
  return warnings;
}
