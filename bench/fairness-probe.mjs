// A steady client in a process of its own (bench/fairness.ts forks it): one request every 1000/rate ms to
// each path, evenly spaced (open loop), so what it measures is how long organization B waits, not how busy
// the load generator is.
import http from 'node:http';

const { url, headers, paths, rate, durationMs } = JSON.parse(process.argv[2]);
// Kept-alive connections, opened before the first measure: what is timed is the answer, not a handshake.
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const get = (path) =>
  new Promise((resolve, reject) => {
    http
      .get(`${url}${path}`, { agent, headers }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode));
      })
      .on('error', reject);
  });
for (const path of paths) await Promise.all(Array.from({ length: 8 }, () => get(path)));
const results = Object.fromEntries(paths.map((path) => [path, { latencies: [], non2xx: 0, errors: 0 }]));
const inFlight = new Set();
const interval = 1000 / rate;
const started = performance.now();
let tick = 0;
await new Promise((resolve) => {
  const timer = setInterval(() => {
    if (performance.now() - started >= durationMs) {
      clearInterval(timer);
      resolve();
      return;
    }
    tick++;
    for (const path of paths) {
      const sent = performance.now();
      const request = get(path)
        .then((status) => {
          results[path].latencies.push(performance.now() - sent);
          if (status < 200 || status >= 300) results[path].non2xx++;
        })
        .catch(() => results[path].errors++)
        .finally(() => inFlight.delete(request));
      inFlight.add(request);
    }
  }, interval);
});
await Promise.all(inFlight);
process.send({ results, ticks: tick }, () => process.exit(0));
