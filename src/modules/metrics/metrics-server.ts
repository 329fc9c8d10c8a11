import { createServer, type Server } from 'node:http';
import { safeEqual } from '../../lib/secrets.js';
import type { Metrics } from './metrics.js';

/**
 * /metrics on a port of its own (CADRE_METRICS_PORT), for operators who expose that port only to their
 * scraper: nothing else is served there, and the main port does not serve /metrics.
 */
export async function startMetricsServer(
  metrics: Metrics,
  options: { host: string; port: number; token: string | undefined },
): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || (request.url ?? '').split('?')[0] !== '/metrics') {
      response
        .writeHead(404, { 'content-type': 'text/plain' })
        .end('Not found: this port serves GET /metrics\n');
      return;
    }
    const given = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '')?.[1];
    if (options.token && !(given && safeEqual(given, options.token))) {
      response.writeHead(401, { 'content-type': 'text/plain' }).end('Missing or invalid metrics token\n');
      return;
    }
    metrics.render().then(
      ({ body, contentType }) => response.writeHead(200, { 'content-type': contentType }).end(body),
      () => response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  return server;
}
