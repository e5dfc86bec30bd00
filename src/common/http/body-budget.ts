/**
 * Contract section 8, memory under slow uploads: the bytes of request bodies being read at once
 * stay within a budget. A body is admitted with a reservation of the most it can buffer, or refused
 * when that would go past the budget; the reservation is given back when its request is over.
 * Policy only, no I/O (request-limits.ts wires it to Fastify).
 */
export class BodyBudget {
  private reserved = 0;

  constructor(readonly budgetBytes: number) {}

  /** Bytes reserved by bodies being read or handled right now. */
  get inUse(): number {
    return this.reserved;
  }

  /** Reserves `bytes` and returns true, or returns false and reserves nothing. */
  tryReserve(bytes: number): boolean {
    if (this.reserved + bytes > this.budgetBytes) return false;
    this.reserved += bytes;
    return true;
  }

  release(bytes: number): void {
    this.reserved = Math.max(0, this.reserved - bytes);
  }
}

/**
 * The most a request's body can make the JSON parser buffer: its declared length, none when that
 * is over the limit (refused unread with 413), and the limit itself for a chunked body.
 */
export function bodyReservation(
  headers: { 'content-length'?: string; 'transfer-encoding'?: string },
  limit: number,
): number {
  const declared = headers['content-length'];
  if (declared !== undefined) {
    const length = Number(declared);
    return Number.isSafeInteger(length) && length >= 0 && length <= limit ? length : 0;
  }
  return headers['transfer-encoding'] !== undefined ? limit : 0;
}
