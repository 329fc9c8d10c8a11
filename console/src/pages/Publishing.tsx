import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { PageHeader } from '../components/PageHeader.js';
import { PageSkeleton } from '../components/PageSkeleton.js';
import { When } from '../components/When.js';
import { useCan } from '../session.js';
import { Approvals } from './publishing-approvals.js';
import { PolicyFacts, PolicyForm, PolicyWarnings } from './publishing-policy.js';

/**
 * `/publishing`: what the organization may publish (its publish policy; owners and admins change it) and the
 * versions waiting for a second owner's or admin's approval, each with what it changes (docs/registry.md
 * "Publish policies").
 */
export function Publishing() {
  const can = useCan();
  const policy = useQuery({
    queryKey: ['publish-policy'],
    queryFn: async ({ signal }) =>
      unwrap(await api.GET('/api/v1/organization/publish-policy', { signal })).data,
  });
  return (
    <section className="page">
      <PageHeader title="Publishing">
        What your organization's Experts may run and reach, and the versions waiting for approval.
      </PageHeader>
      <Approvals />
      <section aria-labelledby="policy-heading" className="card">
        <h2 id="policy-heading">Publish policy</h2>
        <ErrorNotice error={policy.error} retry={policy.refetch} />
        <PolicyWarnings warnings={policy.data?.warnings ?? []} invites={can('members:manage')} />
        {policy.isPending && <PageSkeleton lines={4} />}
        {policy.data &&
          (can('publish-policy:manage') ? (
            <PolicyForm
              policy={policy.data.policy}
              recommended={policy.data.presets.recommended.allowedCommands}
            />
          ) : (
            <>
              <PolicyFacts policy={policy.data.policy} />
              <p className="small muted">Owners and admins change the policy.</p>
            </>
          ))}
        {policy.data?.updatedAt && (
          <p className="small muted">
            Last changed <When at={policy.data.updatedAt} />.
          </p>
        )}
      </section>
    </section>
  );
}
