import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { ERROR_STATUS, type ErrorCode } from './errors.js';
import { randomId } from './request-id.js';

/** What Node's HTTP parser refuses before Fastify sees a request, as our code and message. */
function classify(error: NodeJS.ErrnoException): { code: ErrorCode; message: string } {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { code: 'headers_too_large', message: 'The request line or headers are too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'request_timeout', message: 'The request was not received in time' };
    default:
      return { code: 'bad_request', message: 'The request is not valid HTTP/1.1' };
  }
}

/**
 * Fastify's `clientErrorHandler`: a request Node's parser refuses (a 20 KB URL, a duplicate
 * Content-Length, a header sent too slowly) is answered in the documented error shape, with a request id,
 * and the connection closed; there is no route, so no face, and the management envelope is used. With
 * `log` (the request log), the refusal gets its access-log line: the request id, status, code and the
 * parser's own code as `cause`; no method or URL (Node parsed none it hands over), never the request's bytes.
 */
export function answerClientError(
  error: NodeJS.ErrnoException,
  socket: Socket,
  log?: FastifyBaseLogger,
): void {
  // Nothing to answer on a connection the client already dropped, or one that already has a response.
  if (
    error.code === 'ECONNRESET' ||
    !socket.writable ||
    (socket as Socket & { _httpMessage?: unknown })._httpMessage
  ) {
    socket.destroy();
    return;
  }
  const { code, message } = classify(error);
  const status = ERROR_STATUS[code];
  const requestId = `req_${randomId()}`;
  const body = JSON.stringify({ error: { code, message, requestId } });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\n` +
      'X-Content-Type-Options: nosniff\r\n' +
      'Cache-Control: no-store\r\n' +
      'Connection: close\r\n\r\n' +
      body,
  );
  log?.info({ reqId: requestId, status, code, cause: error.code }, 'request');
}
