import { z } from 'zod';

export const updateMeBody = z
  .object({ name: z.string().trim().min(1).max(200) })
  .strict()
  .meta({ id: 'UpdateMeRequest' });
export const changePasswordBody = z
  .object({
    currentPassword: z.string().min(1).max(1024),
    newPassword: z.string().min(12, 'at least 12 characters').max(1024),
  })
  .strict()
  .meta({ id: 'ChangePasswordRequest' });
export const updateOrganizationBody = z
  .object({ name: z.string().trim().min(1).max(200) })
  .strict()
  .meta({ id: 'UpdateOrganizationRequest' });
