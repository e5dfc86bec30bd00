/**
 * Delivery rate per subscription (contract section 11): the numbers the claim statement and the
 * worker share. A limited subscription's deliveries get start slots one `slotSpacingMs` apart on
 * the database's clock (WebhookJobsRepository takes them inside the claim, on the subscription's
 * row in `subscription_delivery_slots`, so every instance draws from the same sequence). N slots
 * then span RATE_WINDOW_MS, a tenth more than a second: a delivery may start up to that much later
 * than its slot (the claim's reply, the hand-over to the delivery thread, a new connection) and any
 * one-second window at the receiver still sees at most N starts.
 */
export const RATE_WINDOW_MS = 1250;

/**
 * A claim takes the slots of the next half second at most: jobs wait for their slot here (leased,
 * see PacedJobs) no longer than a queued job waits for a slot (ClaimedJobsQueue.MAX_WAIT_MS), and a
 * subscription with no slot within it is skipped by the claim's window like one at its cap.
 */
export const SLOT_HORIZON_MS = 500;

/** A paced job not started this long after its slot (no delivery slot free here) is handed back. */
export const START_TOLERANCE_MS = 40;

/** Time between two slots of a subscription limited to `perSecond`. */
export const slotSpacingMs = (perSecond: number): number => RATE_WINDOW_MS / perSecond;

/**
 * The slots a claim takes (the claim statement's arithmetic, in TypeScript for its unit test):
 * from the later of the next free slot and now, as many as wanted that start within the horizon.
 */
export function grantSlots(
  nextSlotAt: number,
  now: number,
  wanted: number,
  spacingMs: number,
): { first: number; granted: number; nextSlotAt: number } {
  const first = Math.max(nextSlotAt, now);
  const granted = Math.min(wanted, Math.max(0, Math.ceil((now + SLOT_HORIZON_MS - first) / spacingMs)));
  return { first, granted, nextSlotAt: first + granted * spacingMs };
}
