import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { DeliveryTrigger, WebhookEvent } from '../common/reference/enums';
import { arrayLiteral } from '../database/array-literal';
import type { ClaimLimits } from './admission-policy';
import { ClaimConnection } from './claim-connection';
import { RATE_WINDOW_MS, SLOT_HORIZON_MS } from './delivery-pacing';

/** A leased job with what its delivery needs. */
export interface ClaimedJob {
  id: string;
  eventId: string;
  subscriptionId: number;
  eventType: WebhookEvent;
  /** The event's tenant: its record is written only while the subscription still belongs to it. */
  tenant: string;
  payload: string;
  url: string;
  headerName: string | null;
  headerValueEncrypted: string | null;
  /** The subscription's signing secret, encrypted (null only on a row from before signing). */
  signingSecretEncrypted: string | null;
  /** The secret before its last rotation while its overlap lasts (at claim time), encrypted. */
  previousSigningSecretEncrypted: string | null;
  /** host[:port] of the receiver (AdmissionPolicy's host). */
  host: string;
  /**
   * When the job was enqueued (the metrics' publish-to-attempt latency): the event's publication,
   * or the resend, recovery or test asking for it again.
   */
  publishedAt: Date;
  /** What made this attempt (contract section 9). */
  trigger: DeliveryTrigger;
  /** The event's publish span (`traceparent`) when it was traced and sampled (contract section 12). */
  traceContext: string | null;
  /** The subscription is active (at claim time): only a test event is sent to an inactive one. */
  active: boolean;
  /**
   * A rate-limited subscription's job (contract section 11): its slot starts this many ms after the
   * claim answered (PacedJobs); null: no limit, start as soon as admitted.
   */
  startInMs: number | null;
  /** With startInMs: when the subscription's next free slot starts (its next claim is worth it). */
  nextSlotInMs: number | null;
}

/**
 * A row of the claim: a job, or only the counts (id null) when it took none; `cutShort`: it took
 * none because its walk stopped before it found a window (WALKED_CANDIDATES).
 */
type ClaimRow = ClaimedJob & { candidates: number; limitedCandidates: number; cutShort: boolean };

export interface CurrentSubscription {
  tenant: string;
  active: boolean;
}

export interface ClaimRequest {
  leaseMs: number;
  instanceId: string;
  limits: ClaimLimits;
  /** Most jobs to take. */
  wanted: number;
}

export interface ClaimResult {
  jobs: ClaimedJob[];
  /** Due jobs the claim looked at: more than it took means some owner ran out of room. */
  candidates: number;
}

/**
 * Due jobs a claim looks at per job it wants: room for owners with less room than jobs at the head
 * of the outbox (the rest of theirs are passed over; a claim that passed some over is followed by
 * another, which skips the owners then full). Twice is enough for that, and each job looked at costs
 * its subscription's look-up and a place in three window sorts: from 4 to 2, the claim's cost per
 * job taken fell by a quarter (dispatch of one tenant's burst).
 */
const CANDIDATES_PER_JOB = 2;

/**
 * A limited subscription's job: milliseconds from the database's clock now to a time of its slot
 * (no clock skew with it). Looked up only for those jobs, so unlimited ones pay no join.
 */
const PACED = (time: string) => `CASE WHEN s.max_deliveries_per_second IS NOT NULL THEN (
      SELECT (1000 * extract(epoch FROM ${time} - clock_timestamp()))::float8 FROM admitted a WHERE a.id = c.id) END`;

/**
 * Whether a rate-limited subscription (contract section 11) has no slot starting within the
 * horizon: the claim's window then skips its jobs, as it skips an owner at its cap, so a backlog
 * waiting for its slots neither eats the window's LIMIT nor makes the worker claim in a loop.
 * Unlimited subscriptions stop at the IS NULL before it and pay nothing.
 */
const RATE_EXHAUSTED = `
  SELECT 1 FROM subscription_delivery_slots sl
  WHERE sl.subscription_id = s.id AND sl.next_slot_at >= now() + ${SLOT_HORIZON_MS} * interval '1 millisecond'`;

/**
 * Takes start slots for the rate-limited subscriptions among the picked jobs (delivery-pacing.ts,
 * grantSlots): one a picked job, one `spacing_ms` apart from the later of the subscription's next
 * free slot and now, within the horizon. The row is the one place every instance takes slots from:
 * ON CONFLICT DO UPDATE locks it and computes from its latest version, so two claims at once get
 * consecutive slots, never the same. clock_timestamp(): the time the slot is taken, after any wait
 * for that lock. The insert's values are a first claim's (no row yet, so from now): `granted` is
 * then at least what an update can grant, so the update takes it as the number wanted. Nothing
 * here for unlimited subscriptions: no row, no lock.
 */
const TAKE_SLOTS = `slots AS (
    INSERT INTO subscription_delivery_slots AS sl (subscription_id, next_slot_at, granted, spacing_ms)
    SELECT w.subscription_id, clock_timestamp() + w.granted * w.spacing_ms * interval '1 millisecond',
      w.granted, w.spacing_ms
    FROM (
      SELECT p.subscription_id, ${RATE_WINDOW_MS}.0 / p.per_second AS spacing_ms,
        LEAST(count(*), ceil(${SLOT_HORIZON_MS} * p.per_second / ${RATE_WINDOW_MS}.0))::int AS granted
      FROM picked p WHERE p.per_second IS NOT NULL
      GROUP BY p.subscription_id, p.per_second
    ) w
    ON CONFLICT (subscription_id) DO UPDATE SET (next_slot_at, granted, spacing_ms) = (
      SELECT g.first + g.n * EXCLUDED.spacing_ms * interval '1 millisecond', g.n, EXCLUDED.spacing_ms
      FROM (
        SELECT f.first, LEAST(EXCLUDED.granted, GREATEST(0, ceil(
          (${SLOT_HORIZON_MS} - 1000 * extract(epoch FROM f.first - clock_timestamp())) / EXCLUDED.spacing_ms)))::int AS n
        FROM (SELECT GREATEST(sl.next_slot_at, clock_timestamp()) AS first) f
      ) g)
    RETURNING sl.subscription_id, sl.next_slot_at, sl.granted, sl.spacing_ms
  )`;

/** The paced claim's admission: unlimited picks, and limited ones up to the slots they were granted. */
const ADMIT_BY_SLOTS = `${TAKE_SLOTS}, admitted AS (
    -- A limited subscription's picks are a prefix of its jobs (subscription_rank 1, 2, …): the k-th
    -- gets the k-th slot taken; those beyond what was granted stay for a later claim.
    SELECT p.id, sl.next_slot_at - (sl.granted - p.subscription_rank + 1) * sl.spacing_ms * interval '1 millisecond'
        AS start_at, sl.next_slot_at
    FROM picked p
    LEFT JOIN slots sl ON sl.subscription_id = p.subscription_id
    WHERE p.per_second IS NULL OR p.subscription_rank <= sl.granted
  )`;

/** Windows of due jobs (LIMIT $15 each) a claim walks in id order, at most (WALKED_CANDIDATES). */
const WALK_WINDOWS = 8;

/** Job `j` is due: not leased, or its lease ran out (a crash). */
const DUE = `(j.lease_until IS NULL OR j.lease_until < now())`;

/**
 * Subscription `s`, whose id is `id`, has room here: neither it, its tenant nor its receiver host is
 * at its cap (AdmissionPolicy.claimLimits), and if rate-limited it has a slot near (RATE_EXHAUSTED).
 */
const HAS_ROOM = (id: string) => `${id} <> ALL ($3::int[])
      AND s.tenant <> ALL ($5::text[])
      AND s.receiver_host <> ALL ($4::text[])
      AND (s.max_deliveries_per_second IS NULL OR NOT EXISTS (${RATE_EXHAUSTED}))`;

/** A candidate's columns after its id: its subscription (`id`) and what admission needs of `s`. */
const CANDIDATE_COLUMNS = (id: string) =>
  `${id} AS subscription_id, s.tenant, s.receiver_host AS host, s.max_deliveries_per_second AS per_second`;

/** The oldest due jobs, at most WALK_WINDOWS windows of them. */
const WALK = `SELECT j.id, j.subscription_id FROM webhook_jobs j WHERE ${DUE} ORDER BY j.id LIMIT ${WALK_WINDOWS} * $15`;

/**
 * CTE `candidates`, the claim's window: the oldest due jobs of owners with room (at most $15), with
 * what admission needs of their subscription, found by walking the outbox in id order. The walk
 * stops after WALK_WINDOWS windows: when owners at their cap hold the oldest jobs (a hung receiver's
 * backlog, a tenant at its share during its own burst), walking past all of theirs cost every claim
 * as much as they had waiting. CTE `cut_short` tells when the walk stopped there with the window not
 * full: the claim then takes nothing, and the claim by owner (BY_OWNER_CANDIDATES) follows.
 */
const WALKED_CANDIDATES = `candidates AS MATERIALIZED (
    SELECT h.id, ${CANDIDATE_COLUMNS('h.subscription_id')}
    FROM (${WALK}) h
    JOIN subscriptions s ON s.id = h.subscription_id
    WHERE ${HAS_ROOM('h.subscription_id')}
    ORDER BY h.id
    LIMIT $15
  ), cut_short AS (
    -- Walked again only when the window is not full: did the walk stop at its limit?
    SELECT count(*) = ${WALK_WINDOWS} * $15 AS yes FROM (${WALK}) w
    WHERE (SELECT count(*) FROM candidates) < $15
  )`;

/**
 * CTE `candidates` found owner by owner instead, costing nothing per job of an owner at its cap:
 * each subscription with jobs is visited once (`owners`: one descent of
 * IDX_webhook_jobs_subscription_id_id each, a skip scan), and of those with room the oldest due jobs
 * are read, up to the subscription's room and one more (so a claim that left some is followed by
 * another), at most a window. The window is the oldest of these: of what the claim can take, what a
 * walk of the whole outbox would find.
 */
const BY_OWNER_CANDIDATES = `owners(subscription_id) AS (
    SELECT min(j.subscription_id) FROM webhook_jobs j
    UNION ALL
    SELECT (SELECT min(j.subscription_id) FROM webhook_jobs j WHERE j.subscription_id > o.subscription_id)
    FROM owners o WHERE o.subscription_id IS NOT NULL
  ), candidates AS MATERIALIZED (
    SELECT b.id, ${CANDIDATE_COLUMNS('o.subscription_id')}
    FROM owners o
    JOIN subscriptions s ON s.id = o.subscription_id
    CROSS JOIN LATERAL (
      -- A range, not equality: with equality the planner may walk the primary key instead,
      -- filtering every job on the subscription (a few subscriptions holding all jobs look cheap so).
      SELECT j.id FROM webhook_jobs j
      WHERE j.subscription_id BETWEEN o.subscription_id AND o.subscription_id AND ${DUE}
      ORDER BY j.subscription_id, j.id
      LIMIT LEAST($15, 1 + COALESCE(
        (SELECT sr.free FROM unnest($6::int[], $7::int[]) AS sr(id, free) WHERE sr.id = o.subscription_id), $8))
    ) b
    WHERE ${HAS_ROOM('o.subscription_id')}
    ORDER BY b.id
    LIMIT $15
  ), cut_short AS (
    SELECT false AS yes
  )`;

/**
 * Leases due jobs: not leased, or leased by an instance whose lease ran out (a crash). Oldest first
 * among owners with room (AdmissionPolicy.claimLimits: subscriptions, hosts and tenants at their
 * cap are skipped before LIMIT, so a big backlog of one never hides another's jobs), then at most
 * each owner's room. Only the picked jobs are locked, skipping those another instance is claiming
 * (SKIP LOCKED) or claimed since they were read (the lease is checked again on the locked row):
 * locking the whole candidate window wrote a row lock, with its WAL record, for every job looked at. One auto-committed statement: no transaction stays open while the HTTP calls run; the
 * lease (DB clock) keeps other instances off them. The picked ids go to the lock as an array, so
 * they are read through the primary key (a join made the planner hash the whole table). It reads
 * `subscriptions` (the Subscriptions module's) for the tenant, URL and receiver host: a second round
 * trip per claim otherwise.
 *
 * Its window is walked (WALKED_CANDIDATES) or, after a walk cut short, found by owner
 * (BY_OWNER_CANDIDATES, `byOwner`): claimDue runs the second when the first says so.
 *
 * Two forms: `paced` takes rate-limited subscriptions' slots (TAKE_SLOTS); the other has no such
 * step and picks unlimited subscriptions' jobs only, so while no limited subscription has due jobs a
 * claim opens, locks and writes nothing of subscription_delivery_slots (a data-modifying CTE always
 * runs, even with no rows). Each answers how many candidates were limited ones, in a row of its own
 * when it took nothing: the next claim is the paced form when there were some (the unpaced one then
 * took fewer than its candidates, so the worker claims again at once).
 */
function claimSql(paced: boolean, byOwner: boolean): string {
  const admitted = paced ? ADMIT_BY_SLOTS : `admitted AS (SELECT p.id FROM picked p)`;
  return `
  WITH ${byOwner ? `RECURSIVE ${BY_OWNER_CANDIDATES}` : WALKED_CANDIDATES}, ranked AS (
    SELECT c.*,
      row_number() OVER (PARTITION BY c.subscription_id ORDER BY c.id) AS subscription_rank,
      row_number() OVER (PARTITION BY c.host ORDER BY c.id) AS host_rank,
      row_number() OVER (PARTITION BY c.tenant ORDER BY c.id) AS tenant_rank
    FROM candidates c
  ), picked AS (
    SELECT r.id, r.subscription_id, r.per_second, r.subscription_rank
    FROM ranked r
    LEFT JOIN unnest($6::int[], $7::int[]) AS sr(id, free) ON sr.id = r.subscription_id
    LEFT JOIN unnest($9::text[], $10::int[]) AS hr(host, free) ON hr.host = r.host
    LEFT JOIN unnest($12::text[], $13::int[]) AS tr(tenant, free) ON tr.tenant = r.tenant
    WHERE NOT (SELECT yes FROM cut_short)
      AND r.subscription_rank <= COALESCE(sr.free, $8)
      AND r.host_rank <= COALESCE(hr.free, $11)
      AND r.tenant_rank <= COALESCE(tr.free, $14)${paced ? '' : '\n      AND r.per_second IS NULL'}
    ORDER BY r.id
    LIMIT $16
  ), ${admitted}, locked AS (
    SELECT j.id FROM webhook_jobs j
    WHERE j.id = ANY (ARRAY(SELECT id FROM admitted)) AND (j.lease_until IS NULL OR j.lease_until < now())
    FOR UPDATE SKIP LOCKED
  ), claimed AS (
    UPDATE webhook_jobs j
    SET lease_until = now() + $1 * interval '1 millisecond', leased_by = $2, attempts = j.attempts + 1
    WHERE j.id = ANY (ARRAY(SELECT id FROM locked))
    RETURNING j.id, j.event_id, j.subscription_id, j.trigger, j.created_at
  ), seen AS (
    SELECT count(*)::int AS candidates, count(per_second)::int AS limited, (SELECT yes FROM cut_short) AS cut_short
    FROM candidates
  )
  SELECT c.id, c.event_id AS "eventId", c.subscription_id AS "subscriptionId",
    e.event_type AS "eventType", e.tenant, e.payload::text AS payload, s.url, s.header_name AS "headerName",
    s.header_value_encrypted AS "headerValueEncrypted", s.receiver_host AS host, c.created_at AS "publishedAt",
    s.signing_secret_encrypted AS "signingSecretEncrypted",
    CASE WHEN s.previous_signing_secret_until > now() THEN s.previous_signing_secret_encrypted END
      AS "previousSigningSecretEncrypted",
    c.trigger, s.active, e.trace_context AS "traceContext", seen.candidates, seen.limited AS "limitedCandidates",
    seen.cut_short AS "cutShort",
    ${paced ? PACED('a.start_at') : 'NULL::float8'} AS "startInMs",
    ${paced ? PACED('a.next_slot_at') : 'NULL::float8'} AS "nextSlotInMs"
  FROM seen
  LEFT JOIN (claimed c
    JOIN webhook_events e ON e.id = c.event_id
    JOIN subscriptions s ON s.id = c.subscription_id) ON true
  ORDER BY c.id`;
}

/** The claim's four statements: paced or not (claimSql), its window walked or found by owner. */
const CLAIM_STATEMENTS = {
  walked: {
    paced: ['webhook_claim_paced', claimSql(true, false)],
    unpaced: ['webhook_claim', claimSql(false, false)],
  },
  byOwner: {
    paced: ['webhook_claim_paced_by_owner', claimSql(true, true)],
    unpaced: ['webhook_claim_by_owner', claimSql(false, true)],
  },
} as const;

/** Finished jobs whose every record PostgreSQL refuses leave the outbox without one (CompletionWriter). */
const DROP_FINISHED_SQL = `DELETE FROM webhook_jobs WHERE id = ANY ($1::bigint[])`;

/** Hands this instance's unfinished jobs back at shutdown, so they are claimable at once. */
const RELEASE_ALL_SQL = `
  UPDATE webhook_jobs SET lease_until = NULL, leased_by = NULL WHERE leased_by = $1 RETURNING id`;

/** Hands back claimed-ahead jobs that waited too long, unsent: their claim was not an attempt. */
const RELEASE_UNSENT_SQL = `
  UPDATE webhook_jobs SET lease_until = NULL, leased_by = NULL, attempts = attempts - 1
  WHERE id = ANY ($1::bigint[]) AND leased_by = $2`;

/** Channel of the NOTIFY sent by the webhook_jobs insert trigger (migration CreateDispatcher). */
export const JOBS_CHANNEL = 'webhook_jobs';

/** The outbox's statements (table `webhook_jobs`, owned by the dispatcher), one place each. */
@Injectable()
export class WebhookJobsRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly claimConnection: ClaimConnection,
  ) {}

  /** The last claim saw rate-limited subscriptions' jobs: the next takes slots (claimSql). */
  private paced = false;

  async claimDue({ leaseMs, instanceId, limits, wanted }: ClaimRequest): Promise<ClaimResult> {
    const { subscriptions: s, hosts: h, tenants: t } = limits;
    const values = [
      leaseMs,
      instanceId,
      arrayLiteral(s.saturated),
      arrayLiteral(h.saturated),
      arrayLiteral(t.saturated),
      arrayLiteral(s.limited),
      arrayLiteral(s.room),
      s.fresh,
      arrayLiteral(h.limited),
      arrayLiteral(h.room),
      h.fresh,
      arrayLiteral(t.limited),
      arrayLiteral(t.room),
      t.fresh,
      wanted * CANDIDATES_PER_JOB,
      wanted,
    ];
    const pacing = this.paced ? 'paced' : 'unpaced';
    const [name, text] = CLAIM_STATEMENTS.walked[pacing];
    let rows = await this.claimConnection.query<ClaimRow>(name, text, values);
    // Owners at their cap held the oldest jobs beyond the walk: find the window owner by owner.
    if (rows[0].cutShort) {
      const [byOwner, byOwnerText] = CLAIM_STATEMENTS.byOwner[pacing];
      rows = await this.claimConnection.query<ClaimRow>(byOwner, byOwnerText, values);
    }
    // One row at least: the counts, with no job when it took none.
    this.paced = rows[0].limitedCandidates > 0;
    return { jobs: rows[0].id === null ? [] : rows, candidates: rows[0].candidates };
  }

  async dropFinished(ids: string[]): Promise<void> {
    await this.dataSource.query(DROP_FINISHED_SQL, [ids]);
  }

  async releaseUnsent(ids: string[], instanceId: string): Promise<void> {
    await this.dataSource.query(RELEASE_UNSENT_SQL, [ids, instanceId]);
  }

  /** Releases every job leased by `instanceId` and, if any, wakes every instance; returns how many. */
  async releaseAll(instanceId: string): Promise<number> {
    const [, released] = (await this.dataSource.query(RELEASE_ALL_SQL, [instanceId])) as [unknown[], number];
    // Committed already: wake every instance now rather than at its next sweep.
    if (released > 0) await this.dataSource.query(`SELECT pg_notify('${JOBS_CHANNEL}', '')`);
    return released;
  }

  /**
   * The current tenant and active flag of each subscription still there. Reads the Subscriptions
   * module's table: only when a subscription went or was deactivated while jobs were claimed ahead,
   * to settle theirs in one round trip.
   */
  async currentSubscriptions(subscriptionIds: number[]): Promise<Map<number, CurrentSubscription>> {
    const rows = (await this.dataSource.query(
      `SELECT id, tenant, active FROM subscriptions WHERE id = ANY ($1::int[])`,
      [subscriptionIds],
    )) as Array<{ id: number } & CurrentSubscription>;
    return new Map(rows.map(({ id, tenant, active }) => [id, { tenant, active }]));
  }
}
