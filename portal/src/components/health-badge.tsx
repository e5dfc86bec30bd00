import type { SubscriptionHealth } from '../api/types';

const LABELS: Record<SubscriptionHealth['status'], { text: string; className: string }> = {
  HEALTHY: { text: 'Healthy', className: 'badge ok' },
  FAILING: { text: 'Failing', className: 'badge failed' },
  UNKNOWN: { text: 'No attempts yet', className: 'badge off' },
};

/** A subscription's health in a word, and on a failing one how many attempts failed in a row. */
export function HealthBadge({ health }: { health: SubscriptionHealth }) {
  const { text, className } = LABELS[health.status];
  const failures = health.consecutiveFailures;
  return (
    <span className={className}>
      {text}
      {health.status === 'FAILING' &&
        ` (${failures} failed ${failures === 1 ? 'attempt' : 'attempts in a row'})`}
    </span>
  );
}
