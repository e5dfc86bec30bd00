/** A route's numeric id (`/subscriptions/:id`), or undefined when it is not one. */
export const idParam = (value: string | undefined) =>
  value && /^\d+$/.test(value) ? Number(value) : undefined;
