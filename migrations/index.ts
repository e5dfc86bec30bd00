import { CreateUsers1763700000000 } from './1763700000000-CreateUsers';
import { CreateSubscriptions1763700100000 } from './1763700100000-CreateSubscriptions';
import { CreateDispatcher1763700200000 } from './1763700200000-CreateDispatcher';
import { NotifySubscriptionsGone1763700300000 } from './1763700300000-NotifySubscriptionsGone';
import { WebhookJobsRoomForLeases1763700400000 } from './1763700400000-WebhookJobsRoomForLeases';
import { UserTokenVersion1764100000000 } from './1764100000000-UserTokenVersion';
import { SubscriptionMoveClearsItsHistory1764200000000 } from './1764200000000-SubscriptionMoveClearsItsHistory';
import { WebhookJobsQueueVacuum1764300000000 } from './1764300000000-WebhookJobsQueueVacuum';
import { RetentionIndexes1764300100000 } from './1764300100000-RetentionIndexes';
import { WebhookDeliveryCounts1764400000000 } from './1764400000000-WebhookDeliveryCounts';
import { SubscriptionSigningSecrets1764400100000 } from './1764400100000-SubscriptionSigningSecrets';
import { DeliveryTriggersAndDetails1764400200000 } from './1764400200000-DeliveryTriggersAndDetails';
import { SubscriptionReceiverHost1764500000000 } from './1764500000000-SubscriptionReceiverHost';
import { BindSealedSecrets1764600000000 } from './1764600000000-BindSealedSecrets';
import { RevokedTokens1764600100000 } from './1764600100000-RevokedTokens';
import { IdempotentPublish1764700000000 } from './1764700000000-IdempotentPublish';
import { SubscriptionHealth1764800000000 } from './1764800000000-SubscriptionHealth';
import { SubscriptionDeliveryRate1764800100000 } from './1764800100000-SubscriptionDeliveryRate';
import { EventTraceContext1764800200000 } from './1764800200000-EventTraceContext';
import { TypeormMetadata1764800300000 } from './1764800300000-TypeormMetadata';
import { DispatchReferencesByStatements1764900000000 } from './1764900000000-DispatchReferencesByStatements';
import { ColumnChecksAsDomains1765000000000 } from './1765000000000-ColumnChecksAsDomains';
import { PublishLeasedJobs1765100000000 } from './1765100000000-PublishLeasedJobs';
import { JobsBySubscriptionInOrder1765200000000 } from './1765200000000-JobsBySubscriptionInOrder';
import { SubscriptionCountsPerTenant1765300000000 } from './1765300000000-SubscriptionCountsPerTenant';

/** Every migration, in order. `npm run migration:generate` writes a file here: add its class below. */
export const migrations = [
  CreateUsers1763700000000,
  CreateSubscriptions1763700100000,
  CreateDispatcher1763700200000,
  NotifySubscriptionsGone1763700300000,
  WebhookJobsRoomForLeases1763700400000,
  UserTokenVersion1764100000000,
  SubscriptionMoveClearsItsHistory1764200000000,
  WebhookJobsQueueVacuum1764300000000,
  RetentionIndexes1764300100000,
  WebhookDeliveryCounts1764400000000,
  SubscriptionSigningSecrets1764400100000,
  DeliveryTriggersAndDetails1764400200000,
  SubscriptionReceiverHost1764500000000,
  BindSealedSecrets1764600000000,
  RevokedTokens1764600100000,
  IdempotentPublish1764700000000,
  SubscriptionHealth1764800000000,
  SubscriptionDeliveryRate1764800100000,
  EventTraceContext1764800200000,
  TypeormMetadata1764800300000,
  DispatchReferencesByStatements1764900000000,
  ColumnChecksAsDomains1765000000000,
  PublishLeasedJobs1765100000000,
  JobsBySubscriptionInOrder1765200000000,
  SubscriptionCountsPerTenant1765300000000,
];
