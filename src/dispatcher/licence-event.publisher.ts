import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import type {
  LicenceEvent,
  LicenceEventMap,
  LicenceEventName,
  PublishReceipt,
} from '../licence-events/licence-events';
import type { TransactionHandle } from './webhook-outbox.service';

/** What a caller of LicenceEventPublisher may add to an event. */
export interface PublishOptions {
  /** The caller's transaction: the event and its jobs commit (or roll back) with it. */
  transaction?: TransactionHandle;
  /** Idempotent publish (contract section 11; WebhookOutbox's EnqueueOptions). */
  idempotencyKey?: string;
}

/**
 * Where EnqueueWebhooksListener reports what became of an event LicenceEventPublisher emitted: the
 * receipt of the committed jobs, or why none were.
 */
export class PublishOutcome {
  private receipt: PublishReceipt | undefined;
  private failure: { error: unknown } | undefined;

  enqueued(receipt: PublishReceipt): void {
    this.receipt = receipt;
  }

  refused(error: unknown): void {
    this.failure = { error };
  }

  /** The receipt, or the error the listener met; throws when no dispatcher listener reported. */
  result(name: LicenceEventName): PublishReceipt {
    if (this.failure) throw this.failure.error;
    if (!this.receipt) throw new Error(`no dispatcher listener is registered for ${name}`);
    return this.receipt;
  }
}

/** Second argument of every licence event on the emitter (see EnqueueWebhooksListener). */
export interface LicenceEventContext extends PublishOptions {
  /** Present when LicenceEventPublisher emitted the event: its caller awaits the outcome. */
  outcome?: PublishOutcome;
}

/**
 * The in-process interface for internal licence services (contract section 6): publishes a typed
 * licence event through @nestjs/event-emitter. `emitAsync` awaits the dispatcher's listener, which
 * commits the event and one job per matching subscription and reports the receipt to a
 * PublishOutcome, so when the returned promise resolves the deliveries are durable; it rejects (and
 * nothing is enqueued) when the event is invalid or the database refuses it.
 */
@Injectable()
export class LicenceEventPublisher {
  constructor(private readonly emitter: EventEmitter2) {}

  /** Name and payload must agree (LicenceEventMap): a wrong pairing does not compile. */
  async emit<K extends LicenceEventName>(
    name: K,
    event: LicenceEventMap[K],
    options: PublishOptions = {},
  ): Promise<PublishReceipt> {
    if (event.eventType !== name) throw new TypeError(`event ${event.eventType} emitted as ${name}`);
    // The listener reports to `outcome`: no other listener's answer on the emitter can pass for the receipt.
    const outcome = new PublishOutcome();
    const context: LicenceEventContext = { ...options, outcome };
    await this.emitter.emitAsync(name, event, context);
    return outcome.result(name);
  }

  /** `emit(event.eventType, event)`. */
  publish(event: LicenceEvent, options: PublishOptions = {}): Promise<PublishReceipt> {
    return this.emit(event.eventType, event as never, options);
  }
}
