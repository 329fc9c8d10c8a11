import autocannon from 'autocannon';
import { startCadre } from './lib.js';
const cadre = await startCadre();
const p = process.argv[2]!;
try {
  for (const connections of [1, 4, 16, 50]) {
    const r = await autocannon({ url: cadre.url + p, connections, duration: 3 });
    console.log(connections, 'conn', Math.round(r.requests.average), 'req/s', 'p50', r.latency.p50, 'non2xx', r.non2xx);
  }
} finally { await cadre.stop(); }
