import type { ProviderName } from './schema.js';

/**
 * Which models a provider serves, as far as Cadre can tell from a model's name: `cadre init --provider X`
 * writes a model X serves, and `cadre config validate` warns when `model` belongs to another provider's
 * family (a Claude model with provider "openai" fails at run time, not at publish). Ollama and Azure OpenAI
 * serve whatever the operator installed or deployed under a name of their choosing: no family is known.
 */
type Family = { vendor: string; pattern: RegExp };

const CLAUDE: Family = { vendor: 'an Anthropic model (Claude)', pattern: /^claude-/ };
const GEMINI: Family = { vendor: 'a Google model (Gemini)', pattern: /^(models\/)?(gemini|gemma)-/ };
const GPT: Family = { vendor: 'an OpenAI model (GPT)', pattern: /^(gpt-|chatgpt-|o[1-9](-|$)|codex-)/ };
/** Bedrock model ids name their vendor (`anthropic.claude-…`, `amazon.nova-…`), optionally a region first. */
const BEDROCK: Family = {
  vendor: 'an Amazon Bedrock model id',
  pattern: /^((us|eu|apac|jp|au|global)\.)?[a-z][a-z0-9]*\.[a-z]/,
};

/** A model each provider serves: the starter file's `model`, and the suggestion of a warning. */
export const STARTER_MODELS: Record<ProviderName, string> = {
  anthropic: 'claude-sonnet-4-5',
  google: 'gemini-2.5-pro',
  openai: 'gpt-5',
  ollama: 'llama3.1',
  'azure-openai': 'gpt-5',
  'amazon-bedrock': 'anthropic.claude-sonnet-4-5-20250929-v1:0',
  // Vertex AI serves Google's models and Anthropic's (as "claude-…@date").
  'google-vertex': 'gemini-2.5-pro',
};

const SERVED: Partial<Record<ProviderName, Family[]>> = {
  anthropic: [CLAUDE],
  google: [GEMINI],
  openai: [GPT],
  'amazon-bedrock': [BEDROCK],
  'google-vertex': [GEMINI, CLAUDE],
};

/** The providers whose family the model's name belongs to, checked apart from Bedrock's vendor prefix. */
const FAMILIES: Array<{ family: Family; provider: ProviderName }> = [
  { family: CLAUDE, provider: 'anthropic' },
  { family: GEMINI, provider: 'google' },
  { family: GPT, provider: 'openai' },
];

/**
 * When `provider` is known not to serve `model` (the name belongs to another provider's family): the
 * family's vendor and the provider that serves it. Undefined when it may serve it, or nothing is known.
 */
export function foreignModel(
  model: string,
  provider: ProviderName,
): { vendor: string; servedBy: ProviderName } | undefined {
  const served = SERVED[provider];
  if (!served || served.some((family) => family.pattern.test(model))) return undefined;
  const other = FAMILIES.find(({ family }) => family.pattern.test(model));
  return other && { vendor: other.family.vendor, servedBy: other.provider };
}
