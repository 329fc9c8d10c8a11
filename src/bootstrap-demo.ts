import { BASE_SKILL_KEY, DEFAULT_BASE_SKILL, type ExpertDefinition } from './modules/registry/index.js';

const base = { [BASE_SKILL_KEY]: DEFAULT_BASE_SKILL };

/**
 * What the embedded quick start publishes as the demo organization, so a newcomer's registry is not empty:
 * a few Experts with versions, tags, each skill type and a delegation, in publish order.
 */
export const DEMO_EXPERTS: ExpertDefinition[] = [
  {
    name: 'web-search',
    version: '1.0.0',
    minRuntimeVersion: 'v1.0',
    description: 'Searches the web and returns the most relevant pages with short extracts.',
    instruction:
      'Search the web for what you are asked. Answer with at most five results: title, address and a two-line extract each.',
    skills: {
      ...base,
      search: {
        type: 'mcpSseSkill',
        description: 'A hosted search MCP server',
        endpoint: 'https://search.example.com/mcp',
        pick: ['search', 'fetch_page'],
      },
    },
    delegates: [],
  },
  {
    name: 'writer',
    version: '1.0.0',
    minRuntimeVersion: 'v1.0',
    description: 'Turns notes into clear prose.',
    instruction: 'Rewrite the notes you are given as clear, short paragraphs. Keep every fact; add none.',
    skills: { ...base },
    delegates: [],
  },
  {
    name: 'writer',
    version: '1.1.0',
    minRuntimeVersion: 'v1.0',
    description: 'Turns notes into clear prose, and asks before changing the tone.',
    instruction:
      'Rewrite the notes you are given as clear, short paragraphs. Keep every fact; add none.\nAsk the user before you change the tone of the text.',
    skills: {
      ...base,
      'ask-user': {
        type: 'interactiveSkill',
        description: 'Questions for the person running the Expert',
        tools: {
          confirm: {
            description: 'Asks the user to confirm a choice',
            inputJsonSchema: JSON.stringify({
              type: 'object',
              properties: { question: { type: 'string', description: 'What to ask' } },
              required: ['question'],
            }),
          },
        },
      },
    },
    delegates: [],
    tags: ['stable'],
  },
  {
    name: 'researcher',
    version: '0.9.0',
    minRuntimeVersion: 'v1.0',
    description: 'Researches a topic and writes a short, sourced summary.',
    instruction:
      'Research the topic you are given with web-search, then have writer turn your notes into a summary. List your sources at the end.',
    skills: {
      ...base,
      github: {
        type: 'mcpStdioSkill',
        description: 'Reads public repositories',
        // `packageName` names what `npx` runs; `args` is the other way to say it (never both: the runtime
        // refuses a skill with both).
        command: 'npx',
        packageName: '@modelcontextprotocol/server-github',
        requiredEnv: ['GITHUB_TOKEN'],
        omit: ['create_issue'],
      },
    },
    delegates: ['web-search@1.0.0', 'writer@stable'],
  },
];
