// Organization A's flood in a process of its own (bench/fairness.ts forks it and may lower its priority):
// heavy publishes (or, given `updatePath`, tag updates of that version) and database-bound reads from 50
// connections each, for `durationS`. Answers autocannon's two results over IPC.
import autocannon from 'autocannon';

const { url, headers, tag, durationS, publishConnections = 50, updatePath } = JSON.parse(process.argv[2]);
const base = { type: 'mcpStdioSkill', command: 'npx', packageName: '@cadre/base' };
// A heavy publish: 60 skills with long argument lists (a large record, well within the limits).
const skills = Object.fromEntries(
  Array.from({ length: 60 }, (_, i) => [
    `skill-${i}`,
    {
      type: 'mcpStdioSkill',
      command: 'npx',
      args: Array.from({ length: 40 }, (_, j) => `--flag-${j}=${'x'.repeat(60)}`),
    },
  ]),
);
let version = 0;
let update = 0;
const tagUpdate = (request) => ({ ...request, body: JSON.stringify({ tags: [`t${update++ % 8}`] }) });
const noPublishes = Promise.resolve({ statusCodeStats: {}, errors: 0, timeouts: 0 });
const publishes =
  publishConnections === 0
    ? noPublishes
    : autocannon({
        url,
        connections: publishConnections,
        duration: durationS,
        requests: [
          {
            method: 'POST',
            path: updatePath ?? '/registry/experts',
            headers: { ...headers, 'content-type': 'application/json' },
            setupRequest: (request) =>
              updatePath
                ? tagUpdate(request)
                : {
                    ...request,
                    body: JSON.stringify({
                      name: `flood-${tag}`,
                      version: `1.0.${version++}`,
                      minRuntimeVersion: '1.0.0',
                      description: 'A',
                      instruction: 'A',
                      skills: { '@service/base': base, ...skills },
                    }),
                  },
          },
        ],
      });
const reads = autocannon({
  url: `${url}/api/v1/organizations/flood-${tag}/billing/usage`,
  headers,
  connections: 50,
  duration: durationS,
});
const summary = (result) => ({
  statusCodeStats: result.statusCodeStats,
  errors: result.errors,
  timeouts: result.timeouts,
});
const [published, read] = await Promise.all([publishes, reads]);
process.send({ publishes: summary(published), reads: summary(read) }, () => process.exit(0));
