import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Http2SecureServer, Http2Session } from 'node:http2';
import { createSecureContext, type Server as TlsServer } from 'node:tls';
import type { FastifyBaseLogger, FastifyInstance, FastifyServerOptions } from 'fastify';

/** Where the certificate (chain, PEM) and its private key are read from: CADRE_TLS_CERT_FILE, CADRE_TLS_KEY_FILE. */
export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

/** A certificate and its private key, read from their files and checked as a pair. */
export interface TlsCredentials {
  cert: Buffer;
  key: Buffer;
  /** What the logs say of the certificate: enough to tell which one is served, nothing secret. */
  certificate: { subject: string; serialNumber: string; fingerprint256: string; validTo: string };
}

/** What the server serves over TLS: the credentials, and whether HTTP/2 is offered (HTTP/1.1 still is). */
export interface ServedTls {
  credentials: TlsCredentials;
  http2: boolean;
}

/** A certificate or key file that cannot be served: the operator's to fix, so the message names the variable. */
export class TlsFilesError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TlsFilesError';
  }
}

/**
 * Reads and checks both files. A pair that loads here loads in the server: the check builds the same kind of
 * secure context the server does, so a key that is not the certificate's is refused here, with its file's
 * name, and not on a client's first handshake.
 */
export function readTlsCredentials(files: TlsFiles): TlsCredentials {
  const cert = readPem(files.certFile, 'CADRE_TLS_CERT_FILE');
  const key = readPem(files.keyFile, 'CADRE_TLS_KEY_FILE');
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch {
    throw new TlsFilesError(`CADRE_TLS_CERT_FILE: ${files.certFile} holds no PEM certificate`);
  }
  try {
    createSecureContext({ cert, key });
  } catch (error) {
    // OpenSSL's reason (`key values mismatch`, a decoder error) names no key material.
    throw new TlsFilesError(
      `CADRE_TLS_KEY_FILE: ${files.keyFile} is not a private key of the certificate in ${files.certFile} ` +
        `(${(error as Error).message})`,
    );
  }
  const { subject, serialNumber, fingerprint256, validTo } = certificate;
  return { cert, key, certificate: { subject, serialNumber, fingerprint256, validTo } };
}

function readPem(path: string, variable: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new TlsFilesError(
      `${variable}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`,
    );
  }
}

/**
 * Fastify's server options for TLS: HTTPS, or HTTP/2 with HTTP/1.1 for the clients that do not offer h2 in
 * ALPN (curl without --http2, most SDKs). HTTP/2 sessions idle as long as HTTP/1.1 keep-alive connections.
 * Typed as the common options: the app keeps its plain-HTTP types (App), as routes see the same request and
 * reply API either way (Node's HTTP/2 compatibility layer gives them the HTTP/1 shapes).
 */
export function tlsServerOptions(tls: ServedTls, keepAliveMs: number): FastifyServerOptions {
  const { cert, key } = tls.credentials;
  const options = tls.http2
    ? { http2: true, https: { allowHTTP1: true, cert, key }, http2SessionTimeout: keepAliveMs }
    : { https: { cert, key } };
  return options as FastifyServerOptions;
}

/**
 * What Fastify leaves out for TLS servers. It passes the slow-client bounds (`http` options) only to a plain
 * HTTP server, and an HTTP/2 server's HTTP/1.1 connections have Node's own (60 s for headers, 5 min for a
 * request, no keep-alive limit): set them on the server itself, as for plain HTTP. And on close, an HTTP/2
 * server does not end its idle sessions (Node 20): each is closed gracefully (in-flight streams finish), so
 * SIGTERM drains instead of waiting for the session timeout.
 */
export function boundTlsServer(
  app: FastifyInstance,
  tls: ServedTls,
  timeouts: { headersMs: number; requestMs: number; keepAliveMs: number },
): void {
  const server = app.server as unknown as Http2SecureServer & {
    headersTimeout: number;
    requestTimeout: number;
    keepAliveTimeout: number;
    connectionsCheckingInterval: number;
  };
  // Read when the server starts listening (the connection checks) or per connection: set before listen.
  server.headersTimeout = timeouts.headersMs;
  server.requestTimeout = Math.max(timeouts.requestMs, timeouts.headersMs);
  server.keepAliveTimeout = timeouts.keepAliveMs;
  server.connectionsCheckingInterval = Math.min(1_000, timeouts.headersMs);
  if (!tls.http2) return;
  const sessions = new Set<Http2Session>();
  server.on('session', (session: Http2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  app.addHook('preClose', (done) => {
    for (const session of sessions) session.close();
    done();
  });
}

/**
 * On SIGHUP, reads the certificate and key again and serves them to new connections; open connections keep
 * theirs (`setSecureContext` leaves them alone). A pair that does not load is logged and the previous one
 * stays: a renewal job that wrote half a file must not take the service down.
 */
export function reloadTlsOnSighup(server: TlsServer, files: TlsFiles, log: FastifyBaseLogger): void {
  process.on('SIGHUP', () => {
    let credentials: TlsCredentials;
    try {
      credentials = readTlsCredentials(files);
      server.setSecureContext({ cert: credentials.cert, key: credentials.key });
    } catch (error) {
      const reason = error instanceof TlsFilesError ? error.message : String(error);
      log.error(`TLS reload failed, still serving the previous certificate: ${reason}`);
      return;
    }
    log.info({ certificate: credentials.certificate }, 'TLS certificate reloaded');
  });
}
