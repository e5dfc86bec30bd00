/**
 * The places of the subscriptions' sealed values, given to SecretBox as AES-GCM additional data: a
 * value opens only in the row and column it was sealed for (contract section 8, Secrets at rest).
 */
export const sealedIn = {
  headerValue: (id: number) => `subscriptions:${id}:header_value`,
  signingSecret: (id: number) => `subscriptions:${id}:signing_secret`,
  previousSigningSecret: (id: number) => `subscriptions:${id}:previous_signing_secret`,
};
