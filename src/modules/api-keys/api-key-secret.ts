import { randomBase62, sha256Hex } from '../../lib/secrets.js';

const API_KEY_PREFIX = 'cadre_';
const SECRET_LENGTH = 40;
const START_LENGTH = 12;
const FORMAT = /^cadre_[0-9A-Za-z]{40}$/;

export interface NewApiKeySecret {
  key: string;
  digest: string;
  start: string;
}

export function generateApiKeySecret(): NewApiKeySecret {
  const key = API_KEY_PREFIX + randomBase62(SECRET_LENGTH);
  return { key, digest: sha256Hex(key), start: key.slice(0, START_LENGTH) };
}

/** Cheap syntactic check so malformed credentials never reach the database. */
export const isWellFormedApiKey = (value: string): boolean => FORMAT.test(value);
