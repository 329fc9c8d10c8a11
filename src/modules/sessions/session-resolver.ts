import type { PrincipalResolver } from '../../http/auth.js';
import { readCookie } from '../../http/cookies.js';
import { SESSION_COOKIE, type SessionsService } from './sessions.service.js';

/**
 * The `cadre_session` cookie. A request that also sends an Authorization header is judged by that header
 * alone; an unknown or ended session counts as no credential (the route then answers 401 if it needs one).
 */
export function createSessionResolver(sessions: SessionsService): PrincipalResolver {
  return {
    async resolve(request) {
      if (request.headers.authorization !== undefined) return null;
      const token = readCookie(request.headers.cookie, SESSION_COOKIE);
      if (!token) return null;
      return sessions.resolve(token);
    },
  };
}
