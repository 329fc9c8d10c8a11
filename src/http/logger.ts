import type { IncomingMessage } from 'node:http';
import pino, { type Logger } from 'pino';

// Query parameters that carry secrets on their way through (OAuth codes and state, signed tokens).
const SECRET_QUERY = /([?&](?:code|state|token|key|secret|password|csrfToken)=)[^&]*/gi;

export const redactUrl = (url: string): string => url.replace(SECRET_QUERY, '$1[redacted]');

/** JSON logs with credentials removed wherever they could appear. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'res.headers["set-cookie"]',
          '*.password',
          '*.key',
          '*.token',
          '*.secret',
          '*.clientSecret',
          '*.accessToken',
          '*.refreshToken',
          '*.csrfToken',
        ],
        censor: '[redacted]',
      },
      serializers: {
        req: (request: IncomingMessage & { id?: string }) => ({
          id: request.id,
          method: request.method,
          url: redactUrl(request.url ?? ''),
          remoteAddress: request.socket?.remoteAddress,
        }),
        err: pino.stdSerializers.err,
      },
    },
    destination,
  );
}
