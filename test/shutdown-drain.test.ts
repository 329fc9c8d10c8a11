import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from './support/http.js';
import { startCadre } from './support/process.js';

describe('SIGTERM with CADRE_SHUTDOWN_DRAIN_DELAY_MS (behind a load balancer)', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'cadre-drain-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('answers /readyz 503 at once, keeps serving requests during the delay, then drains and exits 0', async () => {
    const cadre = await startCadre({ CADRE_DATA_DIR: dataDir, CADRE_SHUTDOWN_DRAIN_DELAY_MS: '4000' });
    expect((await http(cadre.url, 'GET', '/readyz')).status).toBe(200);
    const exited = once(cadre.child, 'exit');
    cadre.child.kill('SIGTERM');
    let ready = await http(cadre.url, 'GET', '/readyz');
    for (let i = 0; i < 50 && ready.status === 200; i++) ready = await http(cadre.url, 'GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.headers.get('retry-after')).toBe('1');
    expect(ready.body).toMatchObject({ error: { message: 'The server is shutting down' } });
    // Everything else is still served: the balancer takes the instance out before it stops accepting.
    expect((await http(cadre.url, 'GET', '/healthz')).status).toBe(200);
    expect((await http(cadre.url, 'GET', '/registry/experts')).status).toBe(200);
    const [code] = await exited;
    expect(code).toBe(0);
  });
});
