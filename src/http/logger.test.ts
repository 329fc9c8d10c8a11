import { describe, expect, it } from 'vitest';
import {
  createAccessLog,
  createBatchedDestination,
  createLogger,
  lazyChildLogger,
  REDACTED,
  redactSecrets,
  redactUrl,
} from './logger.js';

describe('redactUrl', () => {
  it('redacts secret query parameters by their decoded, case-insensitive name, and keeps the rest', () => {
    const names = [
      'access_token',
      'api_key',
      'apiKey',
      'client_secret',
      'refresh_token',
      'authorization',
      'Authorization',
      '%63ode',
      'code',
      'state',
      'csrfToken',
      'id_token',
      'password',
      'key',
      'sessionId',
      '%ZZtoken',
    ];
    for (const name of names) {
      expect(redactUrl(`/cb?filter=ok&${name}=s3cret&take=5`), name).toBe(
        `/cb?filter=ok&${name}=[redacted]&take=5`,
      );
    }
    expect(redactUrl('/registry/experts?filter=code-review&sort=name&encode=1')).toBe(
      '/registry/experts?filter=code-review&sort=name&encode=1',
    );
    expect(redactUrl('/healthz')).toBe('/healthz');
    expect(redactUrl('/x?token')).toBe('/x?token=[redacted]');
  });

  it('compares names normalized: decoded, lower-cased, without separators', () => {
    const names = [
      'api-key',
      'api%2Dkey',
      'API_KEY',
      'X-Api-Key',
      'access-token',
      'Access_Token',
      'client-secret',
      'refresh-token',
      'id-token',
      'co_de',
      'STATE',
      'session-id',
    ];
    for (const name of names) {
      expect(redactUrl(`/cb?filter=ok&${name}=s3cret`), name).toBe(`/cb?filter=ok&${name}=[redacted]`);
    }
    expect(redactUrl('/x?keyword=a&codec=b&statement=c')).toBe('/x?keyword=a&codec=b&statement=c');
  });

  it('replaces a capability token in the path by its prefix, whatever the route, case or encoding', () => {
    const token = 'I4uWcow7F8mhq5pb5GjT1FdAx3S7xR56';
    const cases: Array<[string, string]> = [
      [`/billing/local/checkout/lcs_${token}`, '/billing/local/checkout/lcs_[redacted]'],
      [`/billing/local/checkout//lcs_${token}`, '/billing/local/checkout//lcs_[redacted]'],
      [`/billing/local/CHECKOUT/lcs_${token}/confirm`, '/billing/local/CHECKOUT/lcs_[redacted]/confirm'],
      [`/billing/local/portal/lps_${token}/cancel`, '/billing/local/portal/lps_[redacted]/cancel'],
      [`/lcs_${token}`, '/lcs_[redacted]'],
      [`/a/LCS_${token}`, '/a/lcs_[redacted]'],
      [`/a/%6Ccs_${token}`, '/a/lcs_[redacted]'],
      [`/a/%4C%50%53_${token}`, '/a/lps_[redacted]'],
      [`/a/lcs%5F${token}`, '/a/lcs_[redacted]'],
      [`/a/x%2Flcs_${token}`, '/a/lcs_[redacted]'],
      [`/a/lcs_${token};v=1?take=5`, '/a/lcs_[redacted]?take=5'],
      [`/a/lcs_${token}?api-key=k`, '/a/lcs_[redacted]?api-key=[redacted]'],
      // In a query value too: a return URL, or a parameter whose name says nothing.
      [`/a?id=lcs_${token}&take=5`, '/a?id=lcs_[redacted]&take=5'],
      [`/a?next=%2Fbilling%2Flocal%2Fportal%2Flps_${token}`, '/a?next=lps_[redacted]'],
    ];
    for (const [url, logged] of cases) expect(redactUrl(url), url).toBe(logged);
    // Not a token: the prefix inside a word, or without its underscore.
    for (const url of ['/registry/experts/glcs_review', '/registry/experts/lcs-guide', '/a?q=xlps_1']) {
      expect(redactUrl(url)).toBe(url);
    }
  });

  it('replaces an API key a client put in the path or a query value, whatever the parameter is called', () => {
    const key = 'cadre_Q2x9TzR4mK7pV1bN8cW3yH6jF0dL5sA2eG9uXkMn';
    const cases: Array<[string, string]> = [
      [`/api/v1/api-keys/${key}`, '/api/v1/api-keys/cadre_[redacted]'],
      [`/registry/experts/${key}/versions`, '/registry/experts/cadre_[redacted]/versions'],
      [`/api/v1/events?q=${key}&limit=5`, '/api/v1/events?q=cadre_[redacted]&limit=5'],
      [`/api/v1/events?auth=Bearer%20${key}`, '/api/v1/events?auth=cadre_[redacted]'],
      [`/api/v1/events?x=${key.toUpperCase()}`, '/api/v1/events?x=cadre_[redacted]'],
      [`/a/%63adre_${key.slice(6)}`, '/a/cadre_[redacted]'],
    ];
    for (const [url, logged] of cases) expect(redactUrl(url), url).toBe(logged);
    // Not a key: an Expert or a word that merely starts like one.
    for (const url of ['/registry/experts/cadre_helper', '/registry/experts/mycadre_0123456789abcdefghij']) {
      expect(redactUrl(url)).toBe(url);
    }
  });
});

describe('redactSecrets', () => {
  it('replaces secret-named values at the top level and at any nesting, in any case', () => {
    const input = {
      key: 'cadre_top',
      user: { email: 'a@b.c', Password: 'hunter2' },
      headers: { authorization: 'Bearer x', cookie: 'cadre_session=y', 'set-cookie': ['z'] },
      grants: [{ permissions: ['a'], token: 't' }, 'plain'],
      deep: { a: { b: { c: { clientSecret: 's', accessToken: 'at', refreshToken: 'rt', csrfToken: 'c' } } } },
    };
    expect(redactSecrets(input)).toEqual({
      key: REDACTED,
      user: { email: 'a@b.c', Password: REDACTED },
      headers: { authorization: REDACTED, cookie: REDACTED, 'set-cookie': REDACTED },
      grants: [{ permissions: ['a'], token: REDACTED }, 'plain'],
      deep: {
        a: {
          b: {
            c: { clientSecret: REDACTED, accessToken: REDACTED, refreshToken: REDACTED, csrfToken: REDACTED },
          },
        },
      },
    });
  });

  it('never mutates what it is given, and returns the same object when there is nothing to redact', () => {
    const clean = { reqId: 'req_1', method: 'GET', url: '/x', status: 200, nested: { a: [1, { b: 2 }] } };
    expect(redactSecrets(clean)).toBe(clean);
    const dirty = { outer: { secret: 's', keep: 1 }, sibling: { keep: 2 } };
    const copy = redactSecrets(dirty);
    expect(dirty.outer.secret).toBe('s');
    expect(copy.sibling).toBe(dirty.sibling);
    expect(copy.outer).toEqual({ secret: REDACTED, keep: 1 });
  });

  it('leaves undefined secrets undefined (nothing to hide, nothing printed)', () => {
    expect(redactSecrets({ token: undefined })).toEqual({ token: undefined });
  });
});

describe('createLogger', () => {
  const capture = () => {
    const lines: Array<Record<string, unknown>> = [];
    return {
      lines,
      stream: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
    };
  };

  it('redacts log objects and what the error serializer copies out of errors', () => {
    const { lines, stream } = capture();
    const log = createLogger('info', stream);
    const error = Object.assign(new Error('upstream failed'), {
      request: { headers: { authorization: 'Bearer leaked' } },
    });
    log.warn({ err: error, password: 'p', url: '/cb?code=abc&x=1' }, 'failed');
    expect(lines[0]!.password).toBe(REDACTED);
    expect(JSON.stringify(lines[0])).not.toContain('leaked');
    expect((lines[0]!.err as { message: string }).message).toBe('upstream failed');
  });

  it("a request's lazy child logger writes the request id binding only when used", () => {
    const { lines, stream } = capture();
    const log = createLogger('info', stream);
    const child = lazyChildLogger(log, { reqId: 'req_42' }, {});
    expect(lines).toHaveLength(0);
    expect(child.level).toBe('info');
    child.debug('below the level');
    child.info({ status: 200 }, 'request');
    child.child({ extra: true }).warn('nested');
    expect(lines).toEqual([
      expect.objectContaining({ reqId: 'req_42', status: 200, msg: 'request', level: 30 }),
      expect.objectContaining({ reqId: 'req_42', extra: true, msg: 'nested', level: 40 }),
    ]);
  });
});

describe('createAccessLog', () => {
  const line = { reqId: 'req_1', method: 'GET', url: '/cb?code=secret-code&x="1"', status: 200, ms: 0.4 };

  it('writes exactly the line pino would, with the URL redacted', () => {
    const written: string[] = [];
    const log = createLogger('info', { write: (chunk: string) => void written.push(chunk) });
    createAccessLog(log)(line);
    log.info({ ...line, url: '/cb?code=[redacted]&x="1"' }, 'request');
    const [handMade, byPino] = written.map((chunk) => {
      expect(chunk.endsWith('}\n')).toBe(true);
      return JSON.parse(chunk) as Record<string, unknown>;
    });
    expect(Object.keys(handMade!)).toEqual(Object.keys(byPino!));
    expect({ ...handMade, time: 0 }).toEqual({ ...byPino, time: 0 });
    expect(written[0]).not.toContain('secret-code');
  });

  it('follows the logger level, and falls back to info() for a logger that is not pino', () => {
    const written: string[] = [];
    createAccessLog(createLogger('warn', { write: (chunk: string) => void written.push(chunk) }))(line);
    expect(written).toEqual([]);
    const calls: unknown[][] = [];
    const other = { info: (...args: unknown[]) => void calls.push(args) } as unknown as Parameters<
      typeof createAccessLog
    >[0];
    createAccessLog(other)(line);
    expect(calls).toEqual([[{ ...line, url: '/cb?code=[redacted]&x="1"' }, 'request']]);
  });
});

describe('createBatchedDestination', () => {
  const target = () => {
    const chunks: string[] = [];
    let synced = 0;
    return {
      chunks,
      synced: () => synced,
      write: (chunk: string) => void chunks.push(chunk),
      flushSync: () => {
        synced++;
      },
    };
  };

  it('hands lines over in order, in one chunk per batch, when the batch is full', () => {
    const sink = target();
    const destination = createBatchedDestination(sink, { maxChars: 10, intervalMs: 60_000 });
    destination.write('aaaa\n');
    destination.write('bbbb\n');
    expect(sink.chunks).toEqual(['aaaa\nbbbb\n']);
    destination.write('cc\n');
    expect(sink.chunks).toHaveLength(1);
    destination.flushSync();
    expect(sink.chunks).toEqual(['aaaa\nbbbb\n', 'cc\n']);
    expect(sink.synced()).toBe(1);
  });

  it('flushes what it holds on its interval, so a quiet server still logs promptly', async () => {
    const sink = target();
    const destination = createBatchedDestination(sink, { intervalMs: 20 });
    destination.write('one\n');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(sink.chunks).toEqual(['one\n']);
  });
});
