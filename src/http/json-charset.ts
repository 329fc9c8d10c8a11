import type { FastifyInstance } from 'fastify';
import { ApiError } from './errors.js';

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)"?/i;

/**
 * JSON is UTF-8 (RFC 8259): a JSON body that declares another charset is refused with 415 before it is parsed,
 * rather than read as UTF-8 (its bytes would turn into other text than the client meant).
 */
export function refuseForeignJsonCharsets(app: FastifyInstance): void {
  app.addHook('preParsing', async (request, _reply, payload) => {
    const type = request.headers['content-type'];
    if (type === undefined || !/^[^;]*json/i.test(type)) return payload;
    const charset = CHARSET.exec(type)?.[1]?.toLowerCase();
    if (charset === undefined || charset === 'utf-8' || charset === 'utf8') return payload;
    throw new ApiError(
      'unsupported_media_type',
      `A JSON body must be UTF-8; this one declares charset=${charset}: send Content-Type: application/json`,
    );
  });
}
