import type { LicenceStatus } from '../common/reference/enums';

/** The licence object inside an event payload (spec, Resources: licence object). */
export interface LicencePayload {
  code: string;
  clientId: number;
  planId: number;
  name: string;
  email: string;
  /** Digits only: area code plus number. */
  phoneNumber: string;
  status: LicenceStatus;
  maxRedemptions: number;
  pricing: number;
}

/** The error object inside a failure event: message and an exception kind name. */
export interface LicenceErrorPayload {
  message: string;
  type: string;
}
