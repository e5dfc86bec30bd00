import { useState } from 'react';
import type { FormEvent } from 'react';
import { EVENT_TYPES } from '../../api/types';
import type { WebhookEvent } from '../../api/types';
import { AttemptStatus } from '../../components/attempt-status';
import { useAttemptWatch } from '../../hooks/use-attempt-watch';
import { useApi } from '../../hooks/use-session';

/** A test event sent, and its outcome shown as soon as it is recorded. */
export function TestSection({ id }: { id: number }) {
  const api = useApi();
  const [eventType, setEventType] = useState<WebhookEvent>(EVENT_TYPES[0]);
  const watch = useAttemptWatch(id, 'TEST', 'Test event sent.');
  const send = (event: FormEvent) => {
    event.preventDefault();
    watch.start(() => api.sendTest(id, eventType));
  };
  return (
    <section aria-labelledby="test-heading">
      <h2 id="test-heading">Test event</h2>
      <form className="filters" onSubmit={send}>
        <div>
          <label htmlFor="test-type">Test event type</label>
          <select
            id="test-type"
            value={eventType}
            onChange={(e) => setEventType(e.target.value as WebhookEvent)}
          >
            {EVENT_TYPES.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </div>
        <button type="submit">Send test event</button>
      </form>
      <AttemptStatus subscriptionId={id} watch={watch} className="test-outcome" linkText="See its details" />
    </section>
  );
}
