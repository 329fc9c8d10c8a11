// The anchor of bench/management-reads.ts: what a hand-written Fastify server gets from the same database
// doing the same reads, with none of Cadre's work around them (no authentication, limits, logging or
// validation). DATABASE_URL: `pg` with a pool of 10, as Cadre's default. ANCHOR_PGLITE_DIR: PGlite in this
// process, on a copy of Cadre's embedded database. The organization comes in the query string (`?org=`).
import Fastify from 'fastify';

const PAGE = 21; // Cadre reads a page of 20 plus one to know whether there is more.

async function openDatabase() {
  if (process.env.DATABASE_URL) {
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
    return { query: async (text, values) => (await pool.query(text, values)).rows };
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const database = await PGlite.create({ dataDir: process.env.ANCHOR_PGLITE_DIR });
  return { query: async (text, values) => (await database.query(text, values)).rows };
}

const db = await openDatabase();
const app = Fastify();

app.get('/keys/:id', async (request, reply) => {
  const [row] = await db.query('SELECT * FROM api_keys WHERE id = $1 AND organization_id = $2', [
    request.params.id,
    request.query.org,
  ]);
  return row ? { data: row } : reply.code(404).send({ error: 'not found' });
});

app.get('/keys', async (request) => ({
  apiKeys: await db.query('SELECT * FROM api_keys WHERE organization_id = $1 ORDER BY seq DESC LIMIT $2', [
    request.query.org,
    PAGE,
  ]),
}));

app.get('/members', async (request) => ({
  data: await db.query(
    `SELECT m.user_id, m.role, m.created_at, u.name, u.email FROM memberships m
     JOIN users u ON u.id = m.user_id WHERE m.organization_id = $1
     ORDER BY m.created_at, m.user_id LIMIT $2`,
    [request.query.org, PAGE],
  ),
}));

app.get('/projects', async (request) => {
  const projects = await db.query(
    'SELECT * FROM projects WHERE organization_id = $1 ORDER BY created_at, id LIMIT $2',
    [request.query.org, PAGE],
  );
  const ids = projects.map((project) => project.id);
  const [environments, agents] = await Promise.all([
    db.query('SELECT * FROM environments WHERE project_id = ANY($1) ORDER BY created_at, id', [ids]),
    db.query('SELECT * FROM agents WHERE project_id = ANY($1) ORDER BY created_at, id', [ids]),
  ]);
  return { data: projects, environments, agents };
});

app.get('/audit', async (request) => ({
  data: await db.query('SELECT * FROM audit_events WHERE organization_id = $1 ORDER BY seq DESC LIMIT $2', [
    request.query.org,
    PAGE,
  ]),
}));

app.get('/events', async (request) => ({
  data: await db.query('SELECT * FROM events WHERE organization_id = $1 ORDER BY seq DESC LIMIT $2', [
    request.query.org,
    PAGE,
  ]),
}));

// The registry list's page and total, as Cadre's list reads them (digest columns, the owner's slug).
app.get('/registry', async (request) => {
  const [experts, [count]] = await Promise.all([
    db.query(
      `SELECT e.id, e.name, e.version, e.min_runtime_version, e.description, e.tags, e.is_latest,
              e.organization_id, e.created_at, e.updated_at, o.slug AS owner_slug, o.created_at AS owner_created_at
       FROM registry_experts e JOIN organizations o ON o.id = e.organization_id
       WHERE e.is_latest ORDER BY e.created_at DESC, e.id DESC LIMIT $1 OFFSET $2`,
      [Number(request.query.take ?? 100), Number(request.query.skip ?? 0)],
    ),
    db.query('SELECT coalesce(sum(latest), 0)::int AS total FROM registry_counts'),
  ]);
  return { data: { experts }, meta: { total: count.total } };
});

const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${JSON.stringify({ address })}\n`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
