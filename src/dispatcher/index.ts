// The dispatcher's public surface: other folders import from here, never from its files.
export { DispatcherModule } from './dispatcher.module';
export { LicenceEventPublisher } from './licence-event.publisher';
export { WebhookOutbox, type EnqueueAgainOutcome, type TransactionHandle } from './webhook-outbox.service';
