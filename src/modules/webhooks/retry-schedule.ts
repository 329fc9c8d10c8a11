const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * How long after a failed attempt the next one is made (docs/webhooks.md, "Retries"): quickly at first (a
 * restart or a deploy on the other side), then every few hours. The first attempt is made at once; the
 * fourteen after it span about three days (72 h 36 min before jitter), after which the delivery is given up.
 */
export const RETRY_DELAYS_MS = [
  5 * SECOND,
  1 * MINUTE,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
  10 * HOUR,
  10 * HOUR,
  10 * HOUR,
  10 * HOUR,
  5 * HOUR,
] as const;

/** Every attempt a delivery gets: the first and one per delay. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** An endpoint every attempt to which has failed for this long is disabled. */
export const FAILING_DISABLE_MS = 72 * HOUR;

/**
 * The delay after the `attempts`-th failed attempt, with up to 20 % added at random (jitter: deliveries that
 * failed together, in an endpoint's outage, do not all come back in the same second), or undefined when none
 * is left. Jitter only lengthens a delay, so a delivery's last attempt always comes three days or more after
 * its first: an endpoint that failed all along is disabled by it.
 */
export function retryDelayMs(attempts: number, random: () => number = Math.random): number | undefined {
  const base = RETRY_DELAYS_MS[attempts - 1];
  if (base === undefined) return undefined;
  return Math.round(base * (1 + 0.2 * random()));
}
