import { Link } from 'react-router';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { PageHeader } from '../components/PageHeader.js';
import { useMe, useSession } from '../session.js';
import { UsageBars } from './Billing.js';
import { useBilling, usePlans } from './billing-queries.js';
import { RecentActivity } from './home-activity.js';
import { NeedsAttention } from './home-attention.js';

/** What needs my attention, what changed lately, who I am, my organization, the plan and how close usage is to its limits, and where to go next. */
export function Home() {
  const session = useSession();
  const me = useMe();
  const org = session.data?.organization;
  const { subscription, usage } = useBilling(org?.slug ?? '');
  const plans = usePlans();
  if (!session.data || !org) return null;
  return (
    <section className="page">
      <PageHeader title={org.name}>
        Signed in as{' '}
        {session.data.user.name && session.data.user.name !== session.data.user.email
          ? `${session.data.user.name} (${session.data.user.email})`
          : session.data.user.email}
        {me.data ? `, ${me.data.role} of this organization` : ''}
      </PageHeader>
      <div className="expert-grid">
        <div className="expert-main">
          <NeedsAttention />
          <RecentActivity />
          <section aria-labelledby="shortcuts">
            <h2 id="shortcuts">Shortcuts</h2>
            <ul className="shortcuts">
              <li className="card">
                <Link to="/keys">API keys</Link>
                <p className="small muted">
                  Create a key for a script or the CLI; revoke the ones you no longer use.
                </p>
              </li>
              <li className="card">
                <Link to="/connections">Connections</Link>
                <p className="small muted">
                  Connect your project environments to the services your agents use.
                </p>
              </li>
              <li className="card">
                <Link to="/billing">Billing</Link>
                <p className="small muted">Plans, your subscription and usage.</p>
              </li>
              {me.data?.permissions.includes('audit:read') && (
                <li className="card">
                  <Link to="/audit">Audit log</Link>
                  <p className="small muted">Who changed what, and when.</p>
                </li>
              )}
              <li className="card">
                <Link to="/members">Members</Link>
                <p className="small muted">
                  {me.data?.permissions.includes('members:manage')
                    ? 'Invite people, change their roles, remove members.'
                    : 'The people of your organization.'}
                </p>
              </li>
              <li className="card">
                <Link to="/settings">Settings</Link>
                <p className="small muted">Your name and password.</p>
              </li>
              <li className="card">
                <Link to="/">Registry</Link>
                <p className="small muted">Your Experts and everyone's.</p>
              </li>
              <li className="card">
                <Link to="/playground">Playground</Link>
                <p className="small muted">Check a cadre.toml as you type.</p>
              </li>
            </ul>
          </section>
        </div>
        <aside className="expert-side">
          <section className="card" aria-labelledby="plan">
            <h2 id="plan">Plan and usage</h2>
            <ErrorNotice
              error={subscription.error ?? usage.error}
              retry={() => Promise.all([subscription.refetch(), usage.refetch()])}
            />
            {subscription.data && (
              <p>
                Plan{' '}
                <strong>
                  {plans.data?.find((plan) => plan.key === subscription.data.planKey)?.name ??
                    subscription.data.planKey}
                </strong>
                {subscription.data.testMode ? ' (test mode)' : ''} · <Link to="/billing">Billing</Link>
              </p>
            )}
            {usage.data && (
              <UsageBars
                usage={usage.data}
                canUpgrade={Boolean(me.data?.permissions.includes('billing:manage'))}
              />
            )}
          </section>
        </aside>
      </div>
    </section>
  );
}
