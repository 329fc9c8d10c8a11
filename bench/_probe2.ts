import { startCadre } from './lib.js';
const cadre = await startCadre();
const p = process.argv[2]!;
try {
  const t = performance.now();
  for (let i = 0; i < 400; i++) { const r = await fetch(cadre.url + p); await r.arrayBuffer(); }
  console.log('avg ms', ((performance.now() - t) / 400).toFixed(2));
} finally { await cadre.stop(); }
