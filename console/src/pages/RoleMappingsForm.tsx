import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useState } from 'react';
import { api, unwrap } from '../api/client.js';
import type { components } from '../api/schema.js';
import { ErrorNotice } from '../components/ErrorNotice.js';

type Mappings = components['schemas']['RoleMappings'];
type Role = Mappings['defaultRole'];
type Rule = Mappings['rules'][number];

/**
 * The group → role rules (docs/sso.md, "Roles from groups"): the role of a person none of whose groups a
 * rule names, and one rule a group. Single sign-on applies them at each sign-in and SCIM at each group change.
 */
export function RoleMappingsForm() {
  const queryClient = useQueryClient();
  const id = useId();
  const current = useQuery({
    queryKey: ['sso-role-mappings'],
    queryFn: async ({ signal }) => unwrap(await api.GET('/api/v1/sso/role-mappings', { signal })).data,
  });
  const [defaultRole, setDefaultRole] = useState<Role>('member');
  const [rules, setRules] = useState<Rule[]>([]);
  useEffect(() => {
    if (!current.data) return;
    setDefaultRole(current.data.defaultRole);
    setRules(current.data.rules);
  }, [current.data]);
  const save = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.PUT('/api/v1/sso/role-mappings', {
          body: { defaultRole, rules: rules.filter((rule) => rule.group.trim() !== '') },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['sso-role-mappings'] }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const change = (index: number, next: Partial<Rule>) =>
    setRules((list) => list.map((rule, at) => (at === index ? { ...rule, ...next } : rule)));
  return (
    <form className="form" onSubmit={submit} aria-label="Roles from groups">
      <h3>Roles from groups</h3>
      <p className="small muted">
        The provider's groups (or SCIM groups) give a role; a person in several gets the highest. Ownership is
        never given by the provider.
      </p>
      <ErrorNotice error={current.error} retry={current.refetch} />
      <label htmlFor={`${id}-default`}>Role when no rule names a group</label>
      <select
        id={`${id}-default`}
        value={defaultRole}
        onChange={(event) => setDefaultRole(event.target.value as Role)}
      >
        <option value="member">Member</option>
        <option value="admin">Admin</option>
      </select>
      {rules.map((rule, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a rule being typed has no identity but its place
        <div key={index} className="row row-wrap">
          <label className="visually-hidden" htmlFor={`${id}-group-${index}`}>
            Group of rule {index + 1}
          </label>
          <input
            id={`${id}-group-${index}`}
            value={rule.group}
            placeholder="engineering"
            onChange={(event) => change(index, { group: event.target.value })}
          />
          <label className="visually-hidden" htmlFor={`${id}-role-${index}`}>
            Role of rule {index + 1}
          </label>
          <select
            id={`${id}-role-${index}`}
            value={rule.role}
            onChange={(event) => change(index, { role: event.target.value as Role })}
          >
            <option value="member">Member</option>
            <option value="admin">Admin</option>
          </select>
          <button
            type="button"
            className="button button-small"
            onClick={() => setRules((list) => list.filter((_, at) => at !== index))}
          >
            Remove<span className="visually-hidden"> rule {index + 1}</span>
          </button>
        </div>
      ))}
      <div className="row row-wrap">
        <button
          type="button"
          className="button"
          onClick={() => setRules((list) => [...list, { group: '', role: 'member' }])}
        >
          Add a rule
        </button>
        <button type="submit" className="button button-primary" disabled={save.isPending}>
          Save the rules
        </button>
      </div>
      <ErrorNotice error={save.error} />
      {save.isSuccess && (
        <p className="small" role="status">
          Rules saved.
        </p>
      )}
    </form>
  );
}
