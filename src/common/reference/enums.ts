/** The spec's enumerations (Resources and their fields, Enumerations), defined once. */

export enum LicenceStatus {
  CREATED = 'CREATED',
  ACTIVATED = 'ACTIVATED',
  SUSPENDED = 'SUSPENDED',
  DEACTIVATED = 'DEACTIVATED',
}

export enum PersonType {
  FISICA = 'FISICA',
  JURIDICA = 'JURIDICA',
}

export enum Gender {
  MALE = 'MALE',
  FEMALE = 'FEMALE',
}

export enum ClientSuspensionReason {
  NON_PAYMENT = 'NON_PAYMENT',
  CLIENT_REQUEST = 'CLIENT_REQUEST',
  VERIFICATION = 'VERIFICATION',
  OPERATIONAL_IRREGULARITY = 'OPERATIONAL_IRREGULARITY',
  OTHER = 'OTHER',
}

export enum ClientDeactivationReason {
  CONTRACT_EXPIRATION = 'CONTRACT_EXPIRATION',
  CONTRACT_TERMINATION = 'CONTRACT_TERMINATION',
  PROVIDER_DECISION = 'PROVIDER_DECISION',
  CLIENT_ACTIVITY_END = 'CLIENT_ACTIVITY_END',
  PORTFOLIO_MIGRATION = 'PORTFOLIO_MIGRATION',
  OTHERS = 'OTHERS',
}

export enum WebhookEvent {
  LICENCE_CREATED_SUCCESS = 'LICENCE_CREATED_SUCCESS',
  LICENCE_CREATED_FAILED = 'LICENCE_CREATED_FAILED',
}

export enum DeliveryStatus {
  SUCCESS = 'SUCCESS',
  FAILED = 'FAILED',
}

/**
 * What made a delivery attempt (contract section 9): a published event, a resend of one record, a
 * recovery of a window's failed events, or a test event.
 */
export enum DeliveryTrigger {
  EVENT = 'EVENT',
  RESEND = 'RESEND',
  RECOVER = 'RECOVER',
  TEST = 'TEST',
}

/** Stored roles (reference list). */
export enum UserRole {
  ROLE_PARTNER = 'ROLE_PARTNER',
  ROLE_CLIENT = 'ROLE_CLIENT',
  ROLE_BRANCH = 'ROLE_BRANCH',
}

/**
 * GET /auth/me names ROLE_CLIENT as ROLE_USER and wraps the value in double square brackets
 * (spec, Current user; contract section 3).
 */
export function renderRole(role: UserRole): string {
  return `[[${role === UserRole.ROLE_CLIENT ? 'ROLE_USER' : role}]]`;
}

/** Limits (spec, Limits). */
export const MAX_STRING_LENGTH = 255;
export const MAX_OBSERVATIONS_LENGTH = 1000;
