/**
 * Signing secrets a rotation retired, each signing alongside the current one until its own expiry, 24 hours
 * after it was retired (docs/webhooks.md, "Webhook endpoints"): a second rotation within a day does not cut
 * the first one's overlap short. They are kept encrypted together in `previous_secret_ciphertext` as a JSON
 * list; `previous_secret_expires_at` is the latest expiry, after which the column means nothing. A row
 * written before the list holds one bare secret, expiring at that column.
 */
export interface RetiredSecret {
  secret: string;
  expiresAt: Date;
}

/** The retired secrets still signing at `now`, newest first, from the column's decrypted text. */
export function parseRetired(plaintext: string, columnExpiry: Date | null, now: Date): RetiredSecret[] {
  const list: RetiredSecret[] = plaintext.startsWith('[')
    ? (JSON.parse(plaintext) as Array<{ secret: string; expiresAt: string }>).map((entry) => ({
        secret: entry.secret,
        expiresAt: new Date(entry.expiresAt),
      }))
    : columnExpiry
      ? [{ secret: plaintext, expiresAt: columnExpiry }]
      : [];
  return list.filter((entry) => entry.expiresAt > now);
}

/** The list after retiring `secret` until `expiresAt`, and the column values that keep it. */
export function retire(still: RetiredSecret[], secret: string, expiresAt: Date) {
  const list = [{ secret, expiresAt }, ...still];
  return {
    plaintext: JSON.stringify(list.map((entry) => ({ ...entry, expiresAt: entry.expiresAt.toISOString() }))),
    latestExpiry: new Date(Math.max(...list.map((entry) => entry.expiresAt.getTime()))),
  };
}
