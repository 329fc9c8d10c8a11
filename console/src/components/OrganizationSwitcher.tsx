import { useLocation, useNavigate } from 'react-router';
import { useSession, useSwitchOrganization } from '../session.js';
import { ErrorNotice } from './ErrorNotice.js';

/**
 * The organization the console works in, and for a person in several a picker to move to another: the
 * session moves (POST /auth/session/organization) and every page reads again there, with the role held there.
 * A page about one resource (`/developers/webhooks/{id}`) goes back to its section, where that id may not exist.
 */
export function OrganizationSwitcher() {
  const session = useSession();
  const switchTo = useSwitchOrganization();
  const navigate = useNavigate();
  const location = useLocation();
  if (!session.data) return null;
  const { organization, organizations } = session.data;
  if (organizations.length < 2) return <span className="organization-name">{organization.name}</span>;
  return (
    <span className="organization-switcher">
      <label htmlFor="organization-switcher" className="visually-hidden">
        Current organization
      </label>
      <select
        id="organization-switcher"
        value={organization.id}
        disabled={switchTo.isPending}
        onChange={(event) =>
          switchTo.mutate(event.target.value, {
            onSuccess: () => navigate(`/${location.pathname.split('/')[1] ?? ''}`),
          })
        }
      >
        {organizations.map((o) => (
          <option key={o.id} value={o.id}>
            {o.name} ({o.role})
          </option>
        ))}
      </select>
      <ErrorNotice error={switchTo.error} />
    </span>
  );
}
