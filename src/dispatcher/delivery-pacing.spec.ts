import fc from 'fast-check';
import { AdmissionPolicy } from './admission-policy';
import {
  grantSlots,
  RATE_WINDOW_MS,
  SLOT_HORIZON_MS,
  slotSpacingMs,
  START_TOLERANCE_MS,
} from './delivery-pacing';
import { PacedJobs } from './paced-jobs';
import type { ClaimedJob } from './webhook-jobs.repository';

describe('grantSlots (the claim statement’s slot arithmetic)', () => {
  it('starts a fresh subscription now and takes the slots within the horizon', () => {
    const spacing = slotSpacingMs(5); // 250 ms
    expect(grantSlots(0, 1000, 10, spacing)).toEqual({ first: 1000, granted: 2, nextSlotAt: 1500 });
    expect(grantSlots(0, 1000, 1, spacing)).toEqual({ first: 1000, granted: 1, nextSlotAt: 1250 });
  });

  it('continues from the next free slot, and grants none while it is beyond the horizon', () => {
    const spacing = slotSpacingMs(5);
    expect(grantSlots(1400, 1000, 10, spacing)).toEqual({ first: 1400, granted: 1, nextSlotAt: 1650 });
    expect(grantSlots(1500, 1000, 10, spacing).granted).toBe(0);
  });

  it('never puts more than N slots in any window of RATE_WINDOW_MS, whoever claims when', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1000 }),
        fc.array(
          fc.record({ after: fc.integer({ min: 0, max: 700 }), wanted: fc.integer({ min: 1, max: 64 }) }),
          {
            minLength: 1,
            maxLength: 60,
          },
        ),
        (perSecond, claims) => {
          const spacing = slotSpacingMs(perSecond);
          let now = 0;
          let next = -Infinity;
          const slots: number[] = [];
          for (const { after, wanted } of claims) {
            now += after;
            const got = grantSlots(next, now, wanted, spacing);
            for (let k = 0; k < got.granted; k++) slots.push(got.first + k * spacing);
            next = got.granted > 0 ? got.nextSlotAt : next;
            // No slot is ever granted beyond the horizon.
            expect(got.first + (got.granted - 1) * spacing).toBeLessThan(now + SLOT_HORIZON_MS + 1e-6);
          }
          for (let i = perSecond; i < slots.length; i++)
            expect(slots[i] - slots[i - perSecond]).toBeGreaterThanOrEqual(RATE_WINDOW_MS - 1e-6);
        },
      ),
    );
  });
});

describe('PacedJobs', () => {
  const job = (id: string, startInMs: number, nextSlotInMs = startInMs + 250): ClaimedJob =>
    ({ id, subscriptionId: 1, host: 'h', tenant: 't', startInMs, nextSlotInMs }) as ClaimedJob;

  it('starts each job at its slot, hands back one the policy could not start within the tolerance', () => {
    const policy = new AdmissionPolicy(2, 60_000, 60_000); // one in flight per subscription
    const paced = new PacedJobs(policy);
    paced.push([job('a', 0), job('b', 250)], 1000);
    expect(paced.take(1000, 0).start.map((j) => j.id)).toEqual(['a']); // b's slot has not come
    expect(paced.take(1250, 0)).toEqual({ start: [], late: [] }); // a still runs: b waits
    expect(paced.length).toBe(1);
    const late = paced.take(1250 + START_TOLERANCE_MS + 1, 0).late;
    expect(late.map((j) => j.id)).toEqual(['b']);
    expect(paced.length).toBe(0);
  });

  it('gives the thread the rest of the tolerance as startBy (epoch ms)', () => {
    const paced = new PacedJobs(new AdmissionPolicy(4, 60_000, 60_000));
    paced.push([job('a', 100)], 1000);
    const [started] = paced.take(1110, 50_000).start;
    expect(started.startBy).toBe(50_000 - 10 + START_TOLERANCE_MS);
  });

  it('wakes for the next slot, then when the subscription’s next slots come within a claim’s reach', () => {
    const paced = new PacedJobs(new AdmissionPolicy(4, 60_000, 60_000));
    paced.push([job('a', 200, 900)], 1000);
    expect(paced.nextWake(1000)).toBe(1200);
    paced.take(1200, 0);
    expect(paced.nextWake(1200)).toBe(1000 + 900 - SLOT_HORIZON_MS + 1);
    expect(paced.slotsOpened(1300)).toBe(false);
    expect(paced.slotsOpened(1000 + 900 - SLOT_HORIZON_MS + 1)).toBe(true);
    expect(paced.nextWake(1500)).toBeUndefined();
  });
});
