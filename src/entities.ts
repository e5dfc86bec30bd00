import { Subscription } from './subscriptions/subscription.entity';
import { User } from './users/user.entity';
import { WebhookDelivery } from './deliveries/webhook-delivery.entity';
import { WebhookEventRecord } from './licence-events/webhook-event-record.entity';
import { WebhookJob } from './dispatcher/webhook-job.entity';

/** Every entity, for the app (AppModule), the CLI and ormconfig.ts alike. Add new ones here. */
export const entities = [User, Subscription, WebhookEventRecord, WebhookJob, WebhookDelivery];
