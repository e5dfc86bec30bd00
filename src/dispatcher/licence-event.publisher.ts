import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import type {
  LicenceEvent,
  LicenceEventMap,
  LicenceEventName,
  PublishReceipt,
} from '../licence-events/licence-events';
import type { TransactionHandle } from './webhook-outbox.service';

/** Set by LicenceEventPublisher: its caller awaits the outcome, so a failure is thrown to it. */
export const AWAITED = Symbol('awaited by LicenceEventPublisher');

/** Second argument of every licence event on the emitter (see EnqueueWebhooksListener). */
export interface LicenceEventContext {
  /** The caller's transaction: the event and its jobs commit (or roll back) with it. */
  transaction?: TransactionHandle;
  /** Idempotent publish (contract section 11; WebhookOutbox's EnqueueOptions). */
  idempotencyKey?: string;
  [AWAITED]?: true;
}

const isReceipt = (value: unknown): value is PublishReceipt =>
  typeof value === 'object' && value !== null && 'eventId' in value && 'matchedSubscriptions' in value;

/**
 * The in-process interface for internal licence services (contract section 6): publishes a typed
 * licence event through @nestjs/event-emitter. `emitAsync` awaits the dispatcher's listener, which
 * commits the event and one job per matching subscription, so when the returned promise resolves
 * the deliveries are durable; it rejects (and nothing is enqueued) when the event is invalid or
 * the database refuses it.
 */
@Injectable()
export class LicenceEventPublisher {
  constructor(private readonly emitter: EventEmitter2) {}

  /** Name and payload must agree (LicenceEventMap): a wrong pairing does not compile. */
  async emit<K extends LicenceEventName>(
    name: K,
    event: LicenceEventMap[K],
    context: LicenceEventContext = {},
  ): Promise<PublishReceipt> {
    if (event.eventType !== name) throw new TypeError(`event ${event.eventType} emitted as ${name}`);
    const results: unknown[] = await this.emitter.emitAsync(name, event, { ...context, [AWAITED]: true });
    const receipt = results.find(isReceipt);
    if (!receipt) throw new Error(`no dispatcher listener is registered for ${name}`);
    return receipt;
  }

  /** `emit(event.eventType, event)`. */
  publish(event: LicenceEvent, context: LicenceEventContext = {}): Promise<PublishReceipt> {
    return this.emit(event.eventType, event as never, context);
  }
}
