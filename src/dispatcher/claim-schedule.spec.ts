import type { AdmissionKey, SkippedOwners } from './admission-policy';
import { ClaimSchedule, ClaimScheduleSizes, WorkerHoldings } from './claim-schedule';

/** The worker's sizes for WEBHOOK_CONCURRENCY=8: 16 jobs leased at once, 2 in flight per subscription. */
const EIGHT_SLOTS: ClaimScheduleSizes = { concurrency: 8, capacity: 16, subscriptionLimit: 2, maxBatch: 100 };

/** A schedule over an occupancy the test sets: nothing in flight or queued, a tenant's whole room. */
function scheduleOf(sizes: ClaimScheduleSizes = EIGHT_SLOTS) {
  const occupancy = { inFlight: 0, queued: 0, tenantRooms: 14 };
  const holdings: WorkerHoldings = {
    inFlight: {
      get size() {
        return occupancy.inFlight;
      },
    },
    queue: {
      get length() {
        return occupancy.queued;
      },
    },
    policy: { tenantRoom: () => occupancy.tenantRooms },
  };
  return { schedule: new ClaimSchedule(sizes, holdings), occupancy };
}

type Held = Partial<Pick<ReturnType<typeof scheduleOf>['occupancy'], 'inFlight' | 'queued'>>;

/** How many jobs a claim right after news takes, with `held` in flight and queued. */
function claimAfterNews({ schedule, occupancy }: ReturnType<typeof scheduleOf>, held: Held): number {
  Object.assign(occupancy, held);
  schedule.jobsArrived();
  return schedule.beginClaim();
}

/** A claim that took fewer than it wanted and saw nothing more: every due job in reach is taken. */
const tookEverything = { wanted: 16, taken: 3, candidates: 3, skipped: undefined };

/** A finished delivery's job: subscription 1 of tenant-a, at a.example. */
const finished: AdmissionKey = { subscriptionId: 1, host: 'a.example', tenant: 'tenant-a' };

/** Owners a claim skipped at their cap. */
const skipped = (owners: Partial<SkippedOwners>): SkippedOwners => ({
  subscriptions: [],
  hosts: [],
  tenants: [],
  ...owners,
});

describe('ClaimSchedule', () => {
  describe('room to claim', () => {
    it('is the capacity less the jobs in flight and queued', () => {
      expect(claimAfterNews(scheduleOf(), { inFlight: 8, queued: 3 })).toBe(5);
    });

    it('is none while below one subscription’s cap, the slots all busy or jobs queued', () => {
      const eight = scheduleOf();
      expect(claimAfterNews(eight, { inFlight: 8, queued: 7 })).toBe(0);
      expect(claimAfterNews(eight, { queued: 6 })).toBe(2);
    });

    it('is what is left, however small, while slots are idle and nothing is queued', () => {
      // 10 leased at once, 4 per subscription: 7 in flight leave 3, under the cap, and a slot idle.
      const small = scheduleOf({ ...EIGHT_SLOTS, capacity: 10, subscriptionLimit: 4 });
      expect(claimAfterNews(small, { inFlight: 7 })).toBe(3);
      expect(claimAfterNews(small, { inFlight: 6, queued: 1 })).toBe(0);
      expect(claimAfterNews(small, { inFlight: 8, queued: 0 })).toBe(0);
    });
  });

  describe('how many to claim', () => {
    it('takes the whole room after news, at most one batch', () => {
      const large = scheduleOf({ ...EIGHT_SLOTS, capacity: 300 });
      large.occupancy.tenantRooms = 5;
      expect(claimAfterNews(large, {})).toBe(100);
      expect(claimAfterNews(large, { inFlight: 250 })).toBe(50);
    });

    it('takes at most the room of the tenants here without news', () => {
      const { schedule, occupancy } = scheduleOf();
      schedule.beginClaim();
      occupancy.tenantRooms = 5;
      schedule.requestClaim();
      expect(schedule.beginClaim()).toBe(5);
      occupancy.tenantRooms = 40;
      schedule.requestClaim();
      expect(schedule.beginClaim()).toBe(16);
    });
  });

  describe('what is fresh', () => {
    it('is everything at first, nothing once a claim began, and jobs published or handed back', () => {
      const { schedule, occupancy } = scheduleOf();
      occupancy.tenantRooms = 1; // every tenant here within a subscription's cap of its limit
      expect(schedule.beginClaim()).toBe(16);
      schedule.requestClaim();
      expect(schedule.beginClaim()).toBe(0); // nothing new: only others' jobs could be found, in vain
      schedule.jobsArrived();
      expect(schedule.beginClaim()).toBe(16);
    });

    it('is not made by due jobs that may wait: they lead finished deliveries to claim, no more', () => {
      const { schedule, occupancy } = scheduleOf();
      schedule.beginClaim();
      schedule.claimEnded(tookEverything);
      occupancy.tenantRooms = 1;
      schedule.jobsMayWait();
      expect(schedule.wantsClaim).toBe(false);
      expect(schedule.claimsAfterDelivery(finished)).toBe(false); // no room for the tenants here
      occupancy.tenantRooms = 2;
      expect(schedule.claimsAfterDelivery(finished)).toBe(true);
    });
  });

  describe('when another claim follows', () => {
    it('is wanted once asked for, until a claim begins', () => {
      const { schedule } = scheduleOf();
      expect(schedule.wantsClaim).toBe(false);
      schedule.jobsArrived();
      expect(schedule.wantsClaim).toBe(true);
      expect(schedule.claimsAgain()).toBe(true);
      schedule.beginClaim();
      expect(schedule.wantsClaim).toBe(false);
      expect(schedule.claimsAgain()).toBe(false);
      schedule.requestClaim();
      expect(schedule.wantsClaim).toBe(true);
    });

    it('follows at once a claim that filled its batch or left due jobs in its window', () => {
      const { schedule } = scheduleOf();
      const wanted = schedule.beginClaim();
      schedule.claimEnded({ wanted, taken: wanted, candidates: wanted, skipped: undefined });
      expect(schedule.wantsClaim).toBe(true);
      expect(schedule.claimsAfterDelivery(finished)).toBe(true);

      schedule.beginClaim();
      schedule.claimEnded({ wanted: 16, taken: 4, candidates: 9, skipped: undefined });
      expect(schedule.wantsClaim).toBe(true);
    });

    it('does not follow, nor on finished deliveries, a claim that took every due job in reach', () => {
      const { schedule } = scheduleOf();
      schedule.beginClaim();
      schedule.claimEnded(tookEverything);
      expect(schedule.wantsClaim).toBe(false);
      expect(schedule.claimsAgain()).toBe(false);
      expect(schedule.claimsAfterDelivery(finished)).toBe(false);
    });

    it('follows a finished delivery that may give room to an owner the claim skipped at its cap', () => {
      const { schedule } = scheduleOf();
      schedule.beginClaim();
      schedule.claimEnded({ ...tookEverything, skipped: skipped({ subscriptions: [1] }) });
      expect(schedule.wantsClaim).toBe(false);
      expect(schedule.claimsAfterDelivery(finished)).toBe(true); // the subscription's own delivery
      schedule.claimEnded({ ...tookEverything, skipped: skipped({ hosts: ['a.example'] }) });
      expect(schedule.claimsAfterDelivery(finished)).toBe(true); // one to the host
      // A tenant's share moves with every delivery here: any finished one may give it room.
      schedule.claimEnded({ ...tookEverything, skipped: skipped({ tenants: ['tenant-b'] }) });
      expect(schedule.claimsAfterDelivery(finished)).toBe(true);
    });

    it('does not follow a finished delivery that gives no room to the owners the claim skipped', () => {
      const { schedule } = scheduleOf();
      schedule.beginClaim();
      // A hung receiver's subscription (2) at its cap: another's deliveries leave it there.
      schedule.claimEnded({
        ...tookEverything,
        skipped: skipped({ subscriptions: [2], hosts: ['b.example'] }),
      });
      expect(schedule.claimsAfterDelivery(finished)).toBe(false);
      expect(schedule.claimsAfterDelivery({ ...finished, subscriptionId: 2, host: 'b.example' })).toBe(true);
      // News (a NOTIFY, the sweep, jobs handed back): any finished delivery claims again.
      schedule.jobsMayWait();
      expect(schedule.claimsAfterDelivery(finished)).toBe(true);
    });

    it('weighs a delivery that finished while a claim ran against what that claim left', () => {
      const { schedule } = scheduleOf();
      schedule.beginClaim();
      expect(schedule.claimsAfterDelivery(finished)).toBe(false); // not while the claim runs
      schedule.claimEnded(tookEverything); // it took every due job in reach: nothing left to claim
      expect(schedule.wantsClaim).toBe(false);

      schedule.beginClaim();
      schedule.claimsAfterDelivery(finished);
      schedule.claimEnded({ ...tookEverything, skipped: skipped({ subscriptions: [2] }) });
      expect(schedule.wantsClaim).toBe(false); // no room for the owner skipped at its cap

      schedule.beginClaim();
      schedule.claimsAfterDelivery(finished);
      schedule.claimEnded({ ...tookEverything, skipped: skipped({ subscriptions: [1] }) });
      expect(schedule.wantsClaim).toBe(true); // room for it: its own delivery ended
    });

    it('claims on finished deliveries again once a claim failed', () => {
      const { schedule } = scheduleOf();
      schedule.beginClaim();
      schedule.claimFailed();
      expect(schedule.claimsAfterDelivery(finished)).toBe(true);
    });

    it('follows a finished delivery when there was no room to claim, once there is', () => {
      const { schedule, occupancy } = scheduleOf();
      schedule.beginClaim();
      schedule.claimEnded(tookEverything);
      occupancy.inFlight = 8;
      occupancy.queued = 8;
      schedule.jobsArrived();
      expect(schedule.beginClaim()).toBe(0);
      expect(schedule.claimsAfterDelivery(finished)).toBe(false); // still no room
      occupancy.queued = 6;
      expect(schedule.claimsAfterDelivery(finished)).toBe(true);
    });

    it('does not follow a finished delivery when due jobs may wait but there is no room', () => {
      const { schedule, occupancy } = scheduleOf();
      schedule.jobsMayWait();
      occupancy.inFlight = 8;
      occupancy.queued = 7;
      expect(schedule.claimsAfterDelivery(finished)).toBe(false);
      schedule.requestClaim();
      expect(schedule.claimsAgain()).toBe(false);
    });
  });

  describe('room for a publish leasing its jobs', () => {
    it('is none until a claim has taken every due job in reach (older jobs first)', () => {
      const { schedule } = scheduleOf();
      expect(schedule.roomForPublish()).toBe(0); // a new worker: jobs of an earlier run may be due
      schedule.beginClaim();
      schedule.claimEnded(tookEverything);
      expect(schedule.roomForPublish()).toBe(16);
      schedule.jobsMayWait(); // a NOTIFY, the sweep, jobs handed back
      expect(schedule.roomForPublish()).toBe(0);
    });

    it('is none after a claim that left due jobs, or skipped an owner at its cap', () => {
      const { schedule } = scheduleOf();
      schedule.beginClaim();
      schedule.claimEnded({ ...tookEverything, candidates: 5 });
      expect(schedule.roomForPublish()).toBe(0);
      schedule.beginClaim();
      schedule.claimEnded({ ...tookEverything, skipped: skipped({ subscriptions: [2] }) });
      expect(schedule.roomForPublish()).toBe(0);
    });

    it('is the capacity less the jobs in flight and waiting, however small', () => {
      const { schedule, occupancy } = scheduleOf();
      schedule.beginClaim();
      schedule.claimEnded(tookEverything);
      Object.assign(occupancy, { inFlight: 8, queued: 7 });
      expect(schedule.roomForPublish()).toBe(1);
      occupancy.queued = 9;
      expect(schedule.roomForPublish()).toBe(0);
    });
  });
});
