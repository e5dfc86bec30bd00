/**
 * The API's shapes and enumerations as the service's own OpenAPI document declares them
 * (schema.gen.ts, written by `npm run build:portal-api`): a field renamed there fails the type check.
 */
import type { components } from './schema.gen';

export {
  deliveryStatusValues as DELIVERY_STATUSES,
  deliveryTriggerValues as TRIGGERS,
  subscriptionHealthStatusValues as HEALTH_STATUSES,
  webhookEventValues as EVENT_TYPES,
} from './schema.gen';

type Schemas = components['schemas'];

export type Me = Schemas['CurrentUser'];
export type Subscription = Schemas['Subscription'];
export type SubscriptionHealth = Schemas['SubscriptionHealth'];
/** The list's health filter: every health, or one status. */
export type HealthFilter = '' | Schemas['SubscriptionHealthStatus'];
export type SubscriptionBody = Schemas['SubscriptionRequest'];
export type Delivery = Schemas['Delivery'];
export type DeliveryDetail = Schemas['DeliveryDetail'];
export type WebhookEvent = Schemas['WebhookEvent'];
export type DeliveryStatus = Schemas['DeliveryStatus'];
export type Trigger = Schemas['DeliveryTrigger'];
export type RotatedSecret = Schemas['RotatedSigningSecret'];
/** A page envelope with its items. */
export type Page<T> = Schemas['Page'] & { content: T[] };

export interface DeliveryFilters {
  status?: DeliveryStatus;
  eventType?: WebhookEvent;
  trigger?: Trigger;
  since?: string;
  until?: string;
}

/** The list's state filter: the full list, or the active or inactive subscriptions only. */
export type ActiveFilter = '' | 'true' | 'false';

export interface SubscriptionListParams {
  index: string;
  active: ActiveFilter;
  health: HealthFilter;
  page: number;
  /** Administrators: one tenant ('' = every tenant). */
  tenant: string;
}

/** A subscription as a PUT body: the same fields, the stored header value kept (contract section 5). */
export function toBody(s: Subscription, changes: Partial<SubscriptionBody> = {}): SubscriptionBody {
  return {
    name: s.name,
    url: s.url,
    ...(s.description ? { description: s.description } : {}),
    events: s.events,
    active: s.active,
    ...(s.headerName ? { headerName: s.headerName } : {}),
    ...changes,
  };
}
