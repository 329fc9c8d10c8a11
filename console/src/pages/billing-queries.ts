import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client.js';

/** The organization's subscription and usage (billing:read), shared by Home and Billing. */
export function useBilling(organization: string) {
  const path = { organizationIdOrSlug: organization };
  const subscription = useQuery({
    queryKey: ['subscription', organization],
    enabled: organization !== '',
    queryFn: async () =>
      unwrap(
        await api.GET('/api/v1/organizations/{organizationIdOrSlug}/billing/subscription', {
          params: { path },
        }),
      ).data,
  });
  const usage = useQuery({
    queryKey: ['usage', organization],
    enabled: organization !== '',
    queryFn: async () =>
      unwrap(
        await api.GET('/api/v1/organizations/{organizationIdOrSlug}/billing/usage', { params: { path } }),
      ).data,
  });
  return { subscription, usage };
}

/** The plans on offer (public), shared by Home (the plan's name) and Billing. */
export function usePlans() {
  return useQuery({
    queryKey: ['plans'],
    queryFn: async () => unwrap(await api.GET('/api/v1/billing/plans')).data.plans,
  });
}
