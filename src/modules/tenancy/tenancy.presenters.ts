import type { Agent, Environment, Organization, Project, User } from './tenancy.tables.js';

type Membership = {
  organizationId: string;
  userId: string;
  role: 'owner' | 'admin' | 'member';
  createdAt: Date;
};

export const presentOrganization = (o: Organization) => ({
  id: o.id,
  slug: o.slug,
  name: o.name,
  accountType: o.accountType,
  createdAt: o.createdAt.toISOString(),
});
// Never the password hash.
export const presentUser = (u: User) => ({
  id: u.id,
  email: u.email,
  name: u.name,
  createdAt: u.createdAt.toISOString(),
});
export const presentMembership = (m: Membership) => ({ ...m, createdAt: m.createdAt.toISOString() });
export const presentProject = (p: Project) => ({ ...p, createdAt: p.createdAt.toISOString() });
export const presentEnvironment = (e: Environment) => ({ ...e, createdAt: e.createdAt.toISOString() });
export const presentAgent = (a: Agent) => ({ ...a, createdAt: a.createdAt.toISOString() });
