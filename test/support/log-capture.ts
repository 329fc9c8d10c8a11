import { Writable } from 'node:stream';
import { createLogger } from '../../src/http/logger.js';

/** A logger as the service makes it, whose output collects in `lines`, one JSON line each. */
export function captureLogs(level = 'info') {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, logger: createLogger(level, sink) };
}
