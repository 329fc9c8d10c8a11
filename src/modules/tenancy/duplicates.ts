import { isUniqueViolation } from '../../db/errors.js';
import { ApiError } from '../../http/errors.js';

/** Runs `work`, answering a unique violation as 409 "`what` already exists" (a slug or name taken). */
export async function conflictOnDuplicate<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isUniqueViolation(error)) throw new ApiError('conflict', `${what} already exists`);
    throw error;
  }
}
