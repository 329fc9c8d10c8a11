import type { App } from '../../http/route-kit.js';
import { createSmtpMailer, type SmtpOptions } from './mailer.js';
import { registerInvitationRoutes, registerMemberRoutes } from './members.routes.js';
import { createMembersService, type MembersServiceDeps } from './members.service.js';

export interface MembersModuleDeps extends Omit<MembersServiceDeps, 'mailer'> {
  /** CADRE_SMTP_URL and CADRE_SMTP_FROM: invitations are also sent by email. */
  smtp?: SmtpOptions | undefined;
}

/**
 * Members and invitations: the management routes (invite, list and revoke invitations, change roles,
 * remove members, transfer the ownership) and the invitation link's routes in the auth face.
 */
export function createMembersModule({ smtp, ...deps }: MembersModuleDeps) {
  const mailer = smtp ? createSmtpMailer(smtp) : undefined;
  const service = createMembersService({ ...deps, mailer, mailAnswerWithinMs: smtp?.answerWithinMs });
  return {
    service,
    registerRoutes(app: App) {
      registerMemberRoutes(app, service);
    },
    /** `/auth/invitations/{token}`: what the link is for, and accepting it. */
    registerAuthRoutes(app: App) {
      registerInvitationRoutes(app, service);
    },
    stop() {
      mailer?.close();
    },
  };
}
