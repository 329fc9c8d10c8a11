// A steady client on its own thread (bench/fairness.ts): one request every 1000/rate ms to each path,
// evenly spaced (open loop), so what it measures is how long organization B waits, not how busy the
// load generator's own event loop is.
import { parentPort, workerData } from 'node:worker_threads';

const { url, headers, paths, rate, durationMs } = workerData;
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
      const request = fetch(`${url}${path}`, { headers })
        .then(async (response) => {
          await response.arrayBuffer();
          results[path].latencies.push(performance.now() - sent);
          if (response.status < 200 || response.status >= 300) results[path].non2xx++;
        })
        .catch(() => results[path].errors++)
        .finally(() => inFlight.delete(request));
      inFlight.add(request);
    }
  }, interval);
});
await Promise.all(inFlight);
parentPort.postMessage({ results, ticks: tick });
