// The baseline: a bare node:http server answering every request with the JSON body given in BODY.
import { createServer } from 'node:http';

const body = process.env.BODY ?? '{"status":"ok"}';
const length = Buffer.byteLength(body);
const server = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': length });
  response.end(body);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ address: `http://127.0.0.1:${server.address().port}` })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
