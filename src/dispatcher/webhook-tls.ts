import type { SecureContextOptions } from 'node:tls';

/**
 * TLS trust for receivers. Empty by default: Node's root store plus NODE_EXTRA_CA_CERTS (contract
 * section 1). Tests that run in-process override this provider with their own CA list.
 */
export const WEBHOOK_TLS_OPTIONS = Symbol('WEBHOOK_TLS_OPTIONS');

export type WebhookTlsOptions = Pick<SecureContextOptions, 'ca'>;

export const defaultWebhookTlsOptions: WebhookTlsOptions = {};
