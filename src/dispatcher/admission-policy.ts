/** What the policy needs to know of a job: whose it is and where it goes. */
export interface AdmissionKey {
  subscriptionId: number;
  /** host[:port] of the receiver. */
  host: string;
  tenant: string;
}

/** Room of one kind of owner at a claim: `saturated` are skipped, `limited` get at most `room` each. */
export interface ClaimRoom<K> {
  saturated: K[];
  limited: K[];
  room: number[];
  /** Room of an owner with nothing here. */
  fresh: number;
}

export interface ClaimLimits {
  subscriptions: ClaimRoom<number>;
  hosts: ClaimRoom<string>;
  tenants: ClaimRoom<string>;
}

/** Whether a claim within `limits` skips some owner at its cap, whose jobs may then be waiting. */
export function skipsSomeOwner({ subscriptions, hosts, tenants }: ClaimLimits): boolean {
  return subscriptions.saturated.length + hosts.saturated.length + tenants.saturated.length > 0;
}

/** Owners a claim skips at their cap here. */
export interface SkippedOwners {
  subscriptions: readonly number[];
  hosts: readonly string[];
  tenants: readonly string[];
}

/** The owners a claim within `limits` skips at their cap, or undefined when it skips none. */
export function skippedOwners(limits: ClaimLimits): SkippedOwners | undefined {
  if (!skipsSomeOwner(limits)) return undefined;
  const { subscriptions, hosts, tenants } = limits;
  return { subscriptions: subscriptions.saturated, hosts: hosts.saturated, tenants: tenants.saturated };
}

/** How many jobs a claim within `room` may take of `owner`'s. */
export function roomFor<K>(room: ClaimRoom<K>, owner: K): number {
  if (room.saturated.includes(owner)) return 0;
  const i = room.limited.indexOf(owner);
  return i === -1 ? room.fresh : room.room[i];
}

/** Counts of jobs per owner, in flight and held (in flight + queued). */
class Tally<K> {
  readonly inFlight = new Map<K, number>();
  readonly held = new Map<K, number>();

  add(map: Map<K, number>, key: K, by: number): void {
    const n = (map.get(key) ?? 0) + by;
    if (n > 0) map.set(key, n);
    else map.delete(key);
  }
}

/**
 * Who may have how many deliveries in flight and claimed ahead (contract section 8, Fairness). Pure:
 * no I/O and no clock (callers pass `now`), so every rule has a unit test.
 * - A subscription: a quarter of the slots (rounded up); one while its receiver gives no answer
 *   at all (a time-out, unreachable): a slow URL holds back only itself, never its host.
 * - A host: a generous ceiling (all but a sixteenth of the slots), so one host's many subscriptions
 *   do not take every slot, yet a hanging path leaves room for the other paths.
 * - A tenant: never more than all but a sixteenth of the slots (that reserve is what another tenant
 *   starts in at once), and its fair share (slots / tenants holding work here); above its share it
 *   borrows only idle slots beyond the reserve, and only while no tenant below its share waits.
 * Held (in flight + claimed ahead) may reach twice the in-flight cap, except for subscriptions that
 * are unresponsive or whose claimed-ahead jobs waited too long (`noteSlowQueue`).
 */
export class AdmissionPolicy {
  readonly subscriptionLimit: number;
  readonly hostLimit: number;
  /** Slots a tenant above its share may not take: where another tenant's first delivery starts. */
  readonly reserve: number;
  private readonly tenantHeldLimit: number;
  private inFlightTotal = 0;
  private readonly subscriptions = new Tally<number>();
  private readonly hosts = new Tally<string>();
  private readonly tenants = new Tally<string>();
  /** Subscriptions whose last attempt got no answer, until when. */
  private readonly unresponsive = new Map<number, number>();
  /** Subscriptions whose claimed-ahead jobs waited too long, until when none are claimed ahead. */
  private readonly noPrefetch = new Map<number, number>();

  constructor(
    readonly concurrency: number,
    private readonly unresponsiveForMs: number,
    private readonly noPrefetchForMs: number,
  ) {
    this.subscriptionLimit = Math.max(1, Math.ceil(concurrency / 4));
    this.reserve = Math.max(1, Math.ceil(concurrency / 16));
    this.hostLimit = Math.max(this.subscriptionLimit, concurrency - this.reserve);
    // Claimed ahead too, but a claim's worth of the worker's capacity (2 × slots) stays for the others.
    this.tenantHeldLimit = 2 * concurrency - this.subscriptionLimit;
  }

  /** Whether `job` may start now: a free slot, and its subscription, host and tenant have room. */
  mayStart(job: AdmissionKey, now: number): boolean {
    if (this.inFlightTotal >= this.concurrency) return false;
    if (
      this.count(this.subscriptions.inFlight, job.subscriptionId) >=
      this.subscriptionCap(job.subscriptionId, now)
    )
      return false;
    if (this.count(this.hosts.inFlight, job.host) >= this.hostLimit) return false;
    const tenantInFlight = this.count(this.tenants.inFlight, job.tenant);
    if (tenantInFlight >= this.concurrency - this.reserve) return false;
    if (tenantInFlight < this.tenantShare(job.tenant)) return true;
    return this.concurrency - this.inFlightTotal > this.reserve && !this.othersWaiting(job.tenant);
  }

  /** Whether another tenant below its share has jobs waiting for a slot here. */
  private othersWaiting(tenant: string): boolean {
    for (const [other, held] of this.tenants.held) {
      const inFlight = this.count(this.tenants.inFlight, other);
      if (other !== tenant && held > inFlight && inFlight < this.tenantShare(other)) return true;
    }
    return false;
  }

  /** Fair share of the slots for `tenant`: slots less the reserve, over the tenants holding work. */
  tenantShare(tenant: string): number {
    const others = this.tenants.held.size - (this.tenants.held.has(tenant) ? 1 : 0);
    return Math.max(1, Math.ceil((this.concurrency - this.reserve) / (others + 1)));
  }

  /** A claimed job is held here (queued) until `released` or `started`. */
  held(job: AdmissionKey): void {
    this.each(job, (tally, key) => tally.add(tally.held, key, 1));
  }

  /** A held job left unsent (handed back, dropped, or shut down). */
  released(job: AdmissionKey): void {
    this.each(job, (tally, key) => tally.add(tally.held, key, -1));
  }

  started(job: AdmissionKey): void {
    this.inFlightTotal++;
    this.each(job, (tally, key) => tally.add(tally.inFlight, key, 1));
  }

  /** A started job finished; `answered`: the receiver sent an HTTP status (else it is unresponsive). */
  finished(job: AdmissionKey, answered: boolean | undefined, now: number): void {
    this.inFlightTotal--;
    this.each(job, (tally, key) => {
      tally.add(tally.inFlight, key, -1);
      tally.add(tally.held, key, -1);
    });
    if (answered === true) this.unresponsive.delete(job.subscriptionId);
    else if (answered === false) this.unresponsive.set(job.subscriptionId, now + this.unresponsiveForMs);
  }

  /**
   * The most jobs one tenant may still take here: a tenant's whole limit when none holds work (it
   * was 0 then, so a worker that had finished everything claimed nothing more until the next publish
   * or sweep, up to 5 s, with jobs due).
   */
  tenantRoom(): number {
    if (this.tenants.held.size === 0) return this.tenantHeldLimit;
    let most = 0;
    for (const held of this.tenants.held.values()) most = Math.max(most, this.tenantHeldLimit - held);
    return most;
  }

  /** Claimed-ahead jobs of the subscription waited too long for a slot: claim none ahead for a while. */
  noteSlowQueue(job: AdmissionKey, now: number): void {
    this.noPrefetch.set(job.subscriptionId, now + this.noPrefetchForMs);
  }

  get inFlight(): number {
    return this.inFlightTotal;
  }

  /** Who a claim skips, and how many jobs it may take of each owner holding work here. */
  claimLimits(now: number): ClaimLimits {
    for (const marks of [this.unresponsive, this.noPrefetch])
      for (const [id, until] of marks) if (until <= now) marks.delete(id);
    const subscriptionIds = new Set([
      ...this.subscriptions.held.keys(),
      ...this.unresponsive.keys(),
      ...this.noPrefetch.keys(),
    ]);
    return {
      subscriptions: this.room(
        subscriptionIds,
        this.subscriptions,
        (id) => this.subscriptionHeldCap(id, now),
        2 * this.subscriptionLimit,
      ),
      hosts: this.room(this.hosts.held.keys(), this.hosts, () => 2 * this.hostLimit, 2 * this.hostLimit),
      tenants: this.room(
        this.tenants.held.keys(),
        this.tenants,
        () => this.tenantHeldLimit,
        this.tenantHeldLimit,
      ),
    };
  }

  private room<K>(keys: Iterable<K>, tally: Tally<K>, cap: (key: K) => number, fresh: number): ClaimRoom<K> {
    const result: ClaimRoom<K> = { saturated: [], limited: [], room: [], fresh };
    for (const key of keys) {
      const free = cap(key) - this.count(tally.held, key);
      if (free <= 0) result.saturated.push(key);
      else {
        result.limited.push(key);
        result.room.push(free);
      }
    }
    return result;
  }

  private subscriptionCap(id: number, now: number): number {
    return (this.unresponsive.get(id) ?? 0) > now ? 1 : this.subscriptionLimit;
  }

  private subscriptionHeldCap(id: number, now: number): number {
    const slow = (this.unresponsive.get(id) ?? 0) > now || (this.noPrefetch.get(id) ?? 0) > now;
    return slow ? this.subscriptionCap(id, now) : 2 * this.subscriptionLimit;
  }

  private count<K>(map: Map<K, number>, key: K): number {
    return map.get(key) ?? 0;
  }

  private each(job: AdmissionKey, apply: <K>(tally: Tally<K>, key: K) => void): void {
    apply(this.subscriptions, job.subscriptionId);
    apply(this.hosts, job.host);
    apply(this.tenants, job.tenant);
  }
}
