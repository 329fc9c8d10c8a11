import { afterEach, describe, expect, it } from 'vitest';
import { currentTenant, runAsTenant, startAttributing, stopAttributing } from './tenant-context.js';

afterEach(stopAttributing);

const tenantAfterAnAwait = () =>
  runAsTenant('org_a', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    return currentTenant();
  });

describe('tenant context', () => {
  it('follows the work across awaits while attributing', async () => {
    startAttributing();
    expect(await tenantAfterAnAwait()).toBe('org_a');
    expect(currentTenant()).toBeUndefined();
  });

  it('runs the work without a tenant when not attributing, and after attribution stops', async () => {
    expect(await tenantAfterAnAwait()).toBeUndefined();
    startAttributing();
    const running = runAsTenant('org_b', async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return currentTenant();
    });
    stopAttributing();
    expect(await running).toBeUndefined();
  });
});
