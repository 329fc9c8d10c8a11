import { Link } from 'react-router';
import type { components } from '../api/schema.js';
import { ScrollableCode } from '../components/ScrollableCode.js';
import { TableScroll } from '../components/TableScroll.js';

type Expert = components['schemas']['RegistryExpert'];
type Skill = Expert['skills'][string];
type CatalogEntry = components['schemas']['McpSkillEntry']['server'];

/** A catalog server's page in the console (its name holds a `/`, kept as a path segment). */
export const catalogServerPath = (name: string) =>
  `/mcp-catalog/servers/${name.split('/').map(encodeURIComponent).join('/')}`;

function List({ items, empty = '—' }: { items: readonly string[] | undefined; empty?: string }) {
  if (!items?.length) return <span className="muted">{empty}</span>;
  return (
    <span className="chips">
      {items.map((item) => (
        <code key={item}>{item}</code>
      ))}
    </span>
  );
}

/** Which of an MCP server's tools the Expert uses: all, only some (pick), or all but some (omit). */
function ToolChoice({ pick, omit }: { pick?: string[] | undefined; omit?: string[] | undefined }) {
  return (
    <>
      <dt>Tools</dt>
      <dd>
        {pick ? (
          <>
            only <List items={pick} />
          </>
        ) : omit ? (
          <>
            all but <List items={omit} />
          </>
        ) : (
          'all'
        )}
      </dd>
    </>
  );
}

const TYPE_WORDS: Record<Skill['type'], string> = {
  mcpStdioSkill: 'MCP server (stdio)',
  mcpSseSkill: 'MCP server (SSE)',
  interactiveSkill: 'Interactive tools',
};

/** Pretty-prints a tool's input schema when it is JSON; shown as text either way, never as markup. */
const prettyJson = (text: string) => {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
};

function SkillDetail({ skill }: { skill: Skill }) {
  switch (skill.type) {
    case 'mcpStdioSkill':
      return (
        <dl className="facts">
          <dt>Command</dt>
          <dd>
            <code>{[skill.command, ...(skill.args ?? [])].join(' ')}</code>
          </dd>
          {skill.packageName && (
            <>
              <dt>Package</dt>
              <dd>
                <code>{skill.packageName}</code>
              </dd>
            </>
          )}
          <ToolChoice pick={skill.pick} omit={skill.omit} />
          <dt>Required environment</dt>
          <dd>
            <List items={skill.requiredEnv} empty="none" />
          </dd>
        </dl>
      );
    case 'mcpSseSkill':
      return (
        <dl className="facts">
          <dt>Endpoint</dt>
          <dd>
            <code>{skill.endpoint}</code>
          </dd>
          <ToolChoice pick={skill.pick} omit={skill.omit} />
        </dl>
      );
    case 'interactiveSkill':
      return (
        <ul className="tools">
          {Object.entries(skill.tools).map(([name, tool]) => (
            <li key={name}>
              <code>{name}</code>
              {tool.description ? ` — ${tool.description}` : ''}
              <details>
                <summary>Input schema</summary>
                <ScrollableCode className="code" label={`Input schema of ${name}`}>
                  {prettyJson(tool.inputJsonSchema)}
                </ScrollableCode>
              </details>
            </li>
          ))}
        </ul>
      );
  }
}

/**
 * The skills as a table; `label` names it where a page shows several (the compare view's changes). `catalog`
 * links each skill the organization's MCP catalog lists to its server's page.
 */
export function SkillsTable({
  skills,
  label = 'Skills',
  catalog,
}: {
  skills: Expert['skills'];
  label?: string;
  catalog?: ReadonlyMap<string, CatalogEntry> | undefined;
}) {
  return (
    <TableScroll label={label}>
      <table className="table">
        <caption className="visually-hidden">{label}</caption>
        <thead>
          <tr>
            <th scope="col">Skill</th>
            <th scope="col">Type</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(skills).map(([name, skill]) => (
            <tr key={name}>
              <th scope="row">
                <code>{name}</code>
                {skill.description && <p className="muted small">{skill.description}</p>}
              </th>
              <td>{TYPE_WORDS[skill.type]}</td>
              <td>
                <SkillDetail skill={skill} />
                {skill.rule && <p className="muted small">Rule: {skill.rule}</p>}
                <CatalogLink entry={catalog?.get(name)} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

function CatalogLink({ entry }: { entry: CatalogEntry | undefined }) {
  if (!entry) return null;
  return (
    <p className="small">
      In the MCP catalog:{' '}
      <Link to={catalogServerPath(entry.name)}>
        {entry.name} {entry.version}
      </Link>
      {entry.status === 'active' ? '' : ` (${entry.status})`}
    </p>
  );
}
