/** The playground's first text: a realistic file with two mistakes to show what the checks say. */
export const STARTER = `# A cadre.toml to try things on: fix the two problems below, or paste your own file.
model = "claude-sonnet-4-5"
temperature = 0.3
maxStep = 50

[provider]
providerName = "anthropic"

[experts."researcher"]
version = "1.2.0"
minRuntimeVersion = "v1.0"
description = "Finds sources and summarizes them"
instruction = """
You research a topic and answer with a short summary and the sources you used.
"""
delegates = ["writer"]

[experts."researcher".skills."@service/base"]
type = "mcpStdioSkill"
command = "npx"
packageName = "@service/base"

[experts."researcher".skills."ask-user"]
type = "interactiveSkill"

[experts."researcher".skills."ask-user".tools.confirm]
description = "Asks the user to confirm a choice"
inputJsonSchema = '{"type": "object", "properties": {"question": {"type": "strin"}}}'

[experts."writer"]
version = "1.0.0"
instruction = "Write clearly."
`;
