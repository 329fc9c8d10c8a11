import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiError } from '../../http/errors.js';
import { sendSerialized } from '../../http/route-kit.js';
import type { CachedAnswer } from '../registry/index.js';
import { keyFromUrl } from './expert-key.js';
import { type RegistryView, registryView } from './registry.presenters.js';
import type { RegistryService } from './registry.service.js';

/** How the registry's faces send their read answers: pre-serialized, with an ETag, 304 when current. */

export const notModified = z.null().meta({ description: 'Not Modified: the If-None-Match ETag is current' });

/** True when If-None-Match names this ETag (or `*`); weak comparison, as RFC 9110 asks for GET. */
function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}

/** Sends a pre-serialized answer (Buffers bypass the serializer) or 304 when the client has it. */
export function sendAnswer(request: FastifyRequest, reply: FastifyReply, answer: CachedAnswer) {
  reply.header('etag', answer.etag).header('cache-control', 'no-cache');
  if (matchesIfNoneMatch(request.headers['if-none-match'], answer.etag)) return reply.code(304).send();
  return sendSerialized(reply, answer.body);
}

/**
 * The key is read from the raw URL by keyFromUrl (router parameters split scoped keys), so the params
 * schema of the GET routes is documentation only: skipping its validation keeps the hot read path short.
 */
export const documentationOnly = () => (value: unknown) => ({ value });

/**
 * The GET handler of `experts/<key>[/versions|/delegators]` for a face: synchronous when the answer is cached
 * (the hot path costs no promise). A face without the delegators listing answers it as an unknown route.
 */
export function readByKey(
  registry: RegistryService,
  view: RegistryView = registryView,
  withDelegators = true,
) {
  return (request: FastifyRequest, reply: FastifyReply): Promise<void> | undefined => {
    const { key, versions, delegators } = keyFromUrl(request.url, true);
    if (delegators && !withDelegators) {
      throw new ApiError('not_found', `No route for ${request.method} ${request.url.split('?')[0]}`);
    }
    const answer = delegators
      ? registry.delegators(key)
      : versions
        ? registry.versions(key, view)
        : registry.get(key, view);
    if (!(answer instanceof Promise)) {
      sendAnswer(request, reply, answer);
      return undefined;
    }
    return answer.then(async (found) => {
      await sendAnswer(request, reply, found); // a reply is awaitable: settles once sent
    });
  };
}
