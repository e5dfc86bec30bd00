import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tracing (contract section 12): the W3C `traceparent` of an event's publish span, stored with the
 * event so every attempt at it (the first, a resend or a recovery days later, on any instance) links
 * back to its publication. Null when tracing was off or the publish was sampled out. A traceparent
 * of version 00 is 55 characters.
 */
export class EventTraceContext1764800200000 implements MigrationInterface {
  name = 'EventTraceContext1764800200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "webhook_events" ADD COLUMN "trace_context" varchar(55)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "webhook_events" DROP COLUMN "trace_context"`);
  }
}
