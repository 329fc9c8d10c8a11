import {
  BASE_SKILL_KEY,
  DEFAULT_BASE_SKILL,
  DEFAULT_MIN_RUNTIME_VERSION,
} from '../expert/expert-definition.js';
import { STARTER_MODELS } from './models.js';
import { CONFIG_DEFAULTS, type ProviderName } from './schema.js';

/** The JSON Schema `cadre init` writes beside the file, named by its `#:schema` line for editors. */
export const SCHEMA_FILE_NAME = 'cadre.schema.json';

/** What each provider's `[provider.setting]` table may hold, as commented examples. */
const PROVIDER_SETTINGS: Record<ProviderName, string[]> = {
  anthropic: ['# baseUrl = "https://api.anthropic.com"', '# headers = { "X-Team" = "docs" }'],
  google: ['# baseUrl = "https://generativelanguage.googleapis.com"'],
  openai: ['# baseUrl = "https://api.openai.com/v1"', '# organization = "org-…"', '# project = "proj_…"'],
  ollama: ['# baseUrl = "http://127.0.0.1:11434"'],
  'azure-openai': [
    '# resourceName = "my-resource"',
    '# apiVersion = "2024-10-21"',
    '# useDeploymentBasedUrls = true',
  ],
  'amazon-bedrock': ['# region = "us-east-1"'],
  'google-vertex': ['# project = "my-project"', '# location = "us-central1"'],
};

/** Where the starter's model name is only an example of what the provider may serve. */
const MODEL_NOTES: Partial<Record<ProviderName, string>> = {
  ollama: 'a model your Ollama server has pulled (ollama pull llama3.1)',
  'azure-openai': 'the name of your deployment',
};

/** A commented starter cadre.toml: runtime settings, the provider, one Expert with the base skill. */
export function starterConfig(provider: ProviderName, schemaFile: string): string {
  return `#:schema ./${schemaFile}
# cadre.toml: runtime settings, the LLM provider and your Experts (docs/config.md).
# Check it with \`cadre config validate\`; publish its Experts with \`cadre publish\`.

# Runtime settings apply to every Expert in this file. They must come before the first [table] header:
# TOML puts every key written after a header into that table.
model = "${STARTER_MODELS[provider]}"${MODEL_NOTES[provider] ? `   # ${MODEL_NOTES[provider]}` : ''}
temperature = ${CONFIG_DEFAULTS.temperature}
maxSteps = ${CONFIG_DEFAULTS.maxSteps}
# maxRetries = ${CONFIG_DEFAULTS.maxRetries}
# timeout = ${CONFIG_DEFAULTS.timeout}      # per generation, in milliseconds
# envPath = [".env"]     # environment files, relative to this file

[provider]
providerName = "${provider}"

# [provider.setting]     # every option is optional
${PROVIDER_SETTINGS[provider].join('\n')}

[experts."my-expert"]
version = "1.0.0"
minRuntimeVersion = "${DEFAULT_MIN_RUNTIME_VERSION}"              # the runtime release it needs (default): "1.0.0", "v1", "v2.1"
description = "What this Expert does, in a sentence"
instruction = """
You are a careful assistant. Describe the Expert's role, its tone and what it must never do.
"""
# delegates = ["other-expert"]          # Experts this one may call: name, name@1.2.0, @scope/name@tag

# The base skill: the runtime's own tools, which every Expert has (Perstack's tools name it "@perstack/base").
[experts."my-expert".skills."${BASE_SKILL_KEY}"]
type = "${DEFAULT_BASE_SKILL.type}"
command = "${DEFAULT_BASE_SKILL.command}"
packageName = "${DEFAULT_BASE_SKILL.packageName}"
`;
}
