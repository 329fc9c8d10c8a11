import type { App } from '../../http/route-kit.js';
import { createInvitationLinksService, type InvitationLinksServiceDeps } from './invitation-links.service.js';
import { createInvitationRecords } from './invitation-records.js';
import { createInvitationsService, type InvitationsServiceDeps } from './invitations.service.js';
import { createSmtpMailer, type SmtpOptions } from './mailer.js';
import { registerInvitationRoutes, registerMemberRoutes } from './members.routes.js';
import { createMembersService, type MembersServiceDeps } from './members.service.js';

export type MembersModuleDeps = MembersServiceDeps &
  Omit<InvitationsServiceDeps, 'records' | 'mailer' | 'mailAnswerWithinMs'> &
  Omit<InvitationLinksServiceDeps, 'records'> & {
    /** CADRE_SMTP_URL and CADRE_SMTP_FROM: invitations are also sent by email. */
    smtp?: SmtpOptions | undefined;
  };

/**
 * Members and invitations: the management routes (invite, list and revoke invitations, change roles,
 * remove members, transfer the ownership) and the invitation link's routes in the auth face.
 */
export function createMembersModule({ smtp, ...deps }: MembersModuleDeps) {
  const mailer = smtp ? createSmtpMailer(smtp) : undefined;
  const records = createInvitationRecords(deps);
  const service = createMembersService(deps);
  const invitations = createInvitationsService({
    ...deps,
    records,
    mailer,
    mailAnswerWithinMs: smtp?.answerWithinMs,
  });
  const links = createInvitationLinksService({ ...deps, records });
  return {
    service,
    registerRoutes(app: App) {
      registerMemberRoutes(app, service, invitations);
    },
    /** `/auth/invitations/{token}`: what the link is for, and accepting it. */
    registerAuthRoutes(app: App) {
      registerInvitationRoutes(app, links);
    },
    stop() {
      mailer?.close();
    },
  };
}
