import { AdmissionKey, AdmissionPolicy, roomFor, skipsSomeOwner } from './admission-policy';

const UNRESPONSIVE_MS = 60_000;
const NO_PREFETCH_MS = 60_000;
const T0 = 1_000_000;

const job = (subscriptionId: number, host = 'hooks.example.com', tenant = 'acme'): AdmissionKey => ({
  subscriptionId,
  host,
  tenant,
});

/** Holds and starts `n` jobs of `key`; returns how many the policy admitted. */
function fill(policy: AdmissionPolicy, key: AdmissionKey, n: number, now = T0): number {
  let admitted = 0;
  for (let i = 0; i < n; i++) {
    policy.held(key);
    if (!policy.mayStart(key, now)) {
      policy.released(key);
      break;
    }
    policy.started(key);
    admitted++;
  }
  return admitted;
}

describe('AdmissionPolicy', () => {
  const policyOf = (concurrency: number) => new AdmissionPolicy(concurrency, UNRESPONSIVE_MS, NO_PREFETCH_MS);

  it('derives its caps from the slots: a quarter per subscription, all but a sixteenth per host and tenant', () => {
    const policy = policyOf(64);
    expect(policy.subscriptionLimit).toBe(16);
    expect(policy.reserve).toBe(4);
    expect(policy.hostLimit).toBe(60);
    const small = policyOf(8);
    expect([small.subscriptionLimit, small.reserve, small.hostLimit]).toEqual([2, 1, 7]);
    const one = policyOf(1);
    expect([one.subscriptionLimit, one.reserve, one.hostLimit]).toEqual([1, 1, 1]);
  });

  it('caps a subscription at a quarter of the slots', () => {
    const policy = policyOf(8);
    expect(fill(policy, job(1), 10)).toBe(2);
    expect(fill(policy, job(2), 10)).toBe(2);
  });

  it('holds an unresponsive subscription to one request in flight, not the other paths of its host', () => {
    const policy = policyOf(64);
    const hanging = job(1);
    expect(fill(policy, hanging, 2)).toBe(2);
    policy.finished(hanging, false, T0); // timed out
    expect(policy.mayStart(hanging, T0)).toBe(false); // one still in flight
    policy.finished(hanging, false, T0);
    expect(fill(policy, hanging, 5, T0 + 1)).toBe(1);
    // Another subscription on the same host keeps its full cap.
    expect(fill(policy, job(2), 20, T0 + 1)).toBe(16);
  });

  it('lifts the one-at-a-time rule when the receiver answers again, or after a while', () => {
    const policy = policyOf(64);
    const sub = job(1);
    fill(policy, sub, 1);
    policy.finished(sub, false, T0);
    fill(policy, sub, 1);
    policy.finished(sub, true, T0 + 10); // an HTTP answer, whatever its status
    expect(fill(policy, sub, 20, T0 + 20)).toBe(16);

    const other = job(2);
    fill(policy, other, 1);
    policy.finished(other, false, T0);
    expect(fill(policy, other, 3, T0 + UNRESPONSIVE_MS - 1)).toBe(1);
    policy.finished(other, undefined, T0 + UNRESPONSIVE_MS - 1); // interrupted: no news
    expect(fill(policy, other, 20, T0 + UNRESPONSIVE_MS)).toBe(16);
  });

  it('keeps a host below all the slots, so many hanging paths of one host leave room for other hosts', () => {
    const policy = policyOf(16);
    let admitted = 0;
    for (let id = 1; id <= 10; id++) admitted += fill(policy, job(id, 'one.example.com', `t${id}`), 4);
    expect(admitted).toBe(policy.hostLimit);
    expect(policy.mayStart(job(99, 'two.example.com', 'zeta'), T0)).toBe(true);
  });

  it('keeps a reserve one tenant cannot take, where another tenant starts at once', () => {
    const policy = policyOf(64);
    let admitted = 0;
    for (let id = 1; id <= 8; id++) admitted += fill(policy, job(id, `h${id}.example.com`, 'busy'), 16);
    expect(admitted).toBe(60); // 64 less the reserve of 4
    expect(policy.mayStart(job(100, 'h1.example.com', 'busy'), T0)).toBe(false);
    expect(fill(policy, job(200, 'other.example.com', 'quiet'), 1)).toBe(1);
  });

  it('gives each tenant holding work a fair share, and lets a tenant above it borrow only idle slots', () => {
    const policy = policyOf(16);
    // The reserve is 1: 15 slots shared.
    const a = (id: number) => job(id, `a${id}.example.com`, 'a');
    const b = job(100, 'b.example.com', 'b');
    let aStarted = 0;
    for (let id = 1; id <= 4; id++) aStarted += fill(policy, a(id), 4);
    expect(aStarted).toBe(15);
    // b claims three jobs and starts one at once, in the reserve; a's share is now ceil(15 / 2) = 8.
    for (let i = 0; i < 3; i++) policy.held(b);
    expect(policy.mayStart(b, T0)).toBe(true);
    policy.started(b);
    expect(policy.mayStart(b, T0)).toBe(false); // every slot busy
    expect([policy.tenantShare('a'), policy.tenantShare('b')]).toEqual([8, 8]);
    // Four of a's deliveries finish: the slots go to b (below its share, jobs waiting), not back to a.
    for (let i = 0; i < 4; i++) policy.finished(a(1), true, T0);
    expect(policy.mayStart(a(1), T0)).toBe(false);
    for (let i = 0; i < 2; i++) {
      expect(policy.mayStart(b, T0)).toBe(true);
      expect(policy.mayStart(a(1), T0)).toBe(false);
      policy.started(b);
    }
    // Nobody waits now (14 of 16 busy), and slots beyond the reserve are idle: a may borrow them.
    expect(policy.mayStart(a(1), T0)).toBe(true);
  });

  it('tells a claim who to skip and how much room the others have', () => {
    const policy = policyOf(8);
    const slow = job(1, 'slow.example.com', 'a');
    fill(policy, slow, 2);
    policy.held(slow); // and two claimed ahead: 2 × its cap of 2
    policy.held(slow);
    const busy = job(2, 'busy.example.com', 'a');
    fill(policy, busy, 1);
    const limits = policy.claimLimits(T0);
    expect(limits.subscriptions).toEqual({ saturated: [1], limited: [2], room: [3], fresh: 4 });
    expect(limits.hosts).toEqual({
      saturated: [],
      limited: ['slow.example.com', 'busy.example.com'],
      room: [10, 13],
      fresh: 14,
    });
    expect(limits.tenants).toEqual({ saturated: [], limited: ['a'], room: [9], fresh: 14 });
    expect(policy.tenantRoom()).toBe(9);
    // One owner's room, as a publish leasing its jobs reads it.
    expect(roomFor(limits.tenants, 'a')).toBe(9);
    expect(roomFor(limits.tenants, 'b')).toBe(14);
    expect(roomFor(limits.subscriptions, 1)).toBe(0);
  });

  it("gives a tenant its whole limit when nothing is held here, not 0 (a drained worker's next claim)", () => {
    const policy = policyOf(8);
    expect(policy.tenantRoom()).toBe(14); // 2 × 8 slots less a claim's worth (2)
    const one = job(1);
    fill(policy, one, 2);
    expect(policy.tenantRoom()).toBe(12);
    policy.finished(one, true, T0);
    policy.finished(one, true, T0);
    expect(policy.tenantRoom()).toBe(14);
  });

  it('claims nothing ahead for an unresponsive subscription or one whose queued jobs waited too long', () => {
    const policy = policyOf(8);
    const dead = job(1);
    fill(policy, dead, 1);
    policy.finished(dead, false, T0);
    const slow = job(2);
    policy.noteSlowQueue(slow, T0);
    fill(policy, slow, 1);
    const limits = policy.claimLimits(T0 + 1);
    expect(limits.subscriptions.limited).toEqual([2, 1]);
    expect(limits.subscriptions.room).toEqual([1, 1]);
    // Both marks run out.
    const later = policy.claimLimits(T0 + NO_PREFETCH_MS + 1);
    expect(later.subscriptions.limited).toEqual([2]);
    expect(later.subscriptions.room).toEqual([3]);
  });

  it('tells whether a claim skips an owner at its cap (subscription, host or tenant)', () => {
    const policy = policyOf(8);
    expect(skipsSomeOwner(policy.claimLimits(T0))).toBe(false);
    const a = job(1, 'a.example.com', 'acme');
    fill(policy, a, 2); // in flight: the subscription's cap, held: half its held cap
    expect(skipsSomeOwner(policy.claimLimits(T0))).toBe(false);
    policy.held(a);
    policy.held(a); // held 4: twice the cap, nothing more is claimed for it
    expect(policy.claimLimits(T0).subscriptions.saturated).toEqual([1]);
    expect(skipsSomeOwner(policy.claimLimits(T0))).toBe(true);
    policy.released(a);
    expect(skipsSomeOwner(policy.claimLimits(T0))).toBe(false);
    // A tenant at its held limit (14 of 16) with none of its subscriptions at theirs.
    for (let id = 10; id < 24; id++) policy.held(job(id, `h${id}.example.com`, 'big'));
    const limits = policy.claimLimits(T0);
    expect([limits.subscriptions.saturated, limits.hosts.saturated, limits.tenants.saturated]).toEqual([
      [],
      [],
      ['big'],
    ]);
    expect(skipsSomeOwner(limits)).toBe(true);
  });
});
