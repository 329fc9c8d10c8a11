/**
 * Whether the last session ended under the person's hands (a change answered 401). Two things redirect to
 * sign-in at that moment — the MutationCache's handler (main.tsx) and RequireSession, which sees the
 * session turn null — and whichever navigation lands last decides the URL, so an `expired=1` in one URL
 * alone was lost in that race. This flag is set before either runs and read by both and by the sign-in
 * page, so the notice survives any order; a successful sign-in clears it.
 */
let ended = false;

export function markSessionEnded(): void {
  ended = true;
}

export function sessionEnded(): boolean {
  return ended;
}

export function clearSessionEnded(): void {
  ended = false;
}
