/**
 * kafkajs can be left fetching without a group membership. Seen after the broker was paused
 * past its own session: the coordinator reloaded its groups, kafkajs's rejoin after "The
 * coordinator is not aware of this member" met a coordinator that was still loading, and its
 * retry went back to fetching with no member id. Messages were still handled, but every commit
 * failed from then on and the group never rebalanced, until the process restarted. This
 * notices a membership that stays lost while fetching goes on, so the consumer can be started
 * again (it then joins as a new member).
 */
export class MembershipWatch {
  private lostSince?: number;

  /** `graceMs`: how long kafkajs gets to rejoin by itself (it normally takes well under a second). */
  constructor(private readonly graceMs: number) {}

  /** A commit failed. True when this member has been unknown to its coordinator for longer than the grace: restart. */
  commitFailed(error: unknown, now = Date.now()): boolean {
    if (!isUnknownMember(error)) return false;
    this.lostSince ??= now;
    return now - this.lostSince >= this.graceMs;
  }

  /** The member joined its group (again), or a commit went through: nothing is lost. */
  reset(): void {
    this.lostSince = undefined;
  }
}

/** kafkajs's UNKNOWN_MEMBER_ID, also when it comes wrapped by its retries. */
function isUnknownMember(error: unknown): boolean {
  for (let cause = error as { type?: string; cause?: unknown; originalError?: unknown } | undefined, depth = 0; cause && depth < 5; depth++) {
    if (cause.type === 'UNKNOWN_MEMBER_ID') return true;
    cause = (cause.cause ?? cause.originalError) as typeof cause;
  }
  return false;
}
