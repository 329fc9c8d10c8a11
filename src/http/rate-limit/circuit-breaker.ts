import type { CircuitState } from './store.js';

/** Thrown instead of calling while the circuit is open: the caller takes its fail-open path at once. */
class CircuitOpenError extends Error {
  readonly code = 'ECIRCUITOPEN';
  constructor(retryInMs: number) {
    super(`circuit open: not called for another ${Math.ceil(retryInMs)} ms`);
  }
}

export interface CircuitBreakerOptions {
  /** Failed calls in a row that open the circuit. */
  failures: number;
  /** How long an open circuit refuses every call before letting one probe through. */
  cooldownMs: number;
  onChange?: (state: CircuitState) => void;
  now?: () => number;
}

/**
 * A circuit breaker on consecutive failures (docs/operations.md, "Redis: a circuit breaker"). Home-made on
 * purpose: opossum, the well-kept one, opens on an error *ratio* over a rolling window, so after a busy
 * window of successes a hung Redis would need as many 500 ms timeouts again before it opened; here
 * `failures` in a row open it, whatever came before.
 */
export function createCircuitBreaker(options: CircuitBreakerOptions) {
  const now = options.now ?? Date.now;
  let state: CircuitState = 'closed';
  let failuresInRow = 0;
  let openedAt = 0;
  let probing = false;
  const set = (next: CircuitState) => {
    if (next === state) return;
    state = next;
    options.onChange?.(next);
  };
  const open = () => {
    openedAt = now();
    set('open');
  };

  return {
    state: (): CircuitState => state,
    async run<T>(call: () => Promise<T>): Promise<T> {
      if (state === 'open') {
        const waited = now() - openedAt;
        if (waited < options.cooldownMs) throw new CircuitOpenError(options.cooldownMs - waited);
        set('half_open');
      }
      if (state === 'half_open') {
        // One probe at a time; the others fail open until it answers.
        if (probing) throw new CircuitOpenError(0);
        probing = true;
      }
      const probe = state === 'half_open';
      try {
        const result = await call();
        failuresInRow = 0;
        set('closed');
        return result;
      } catch (error) {
        failuresInRow++;
        if (probe || (state === 'closed' && failuresInRow >= options.failures)) open();
        throw error;
      } finally {
        if (probe) probing = false;
      }
    },
  };
}
