import { useRef, useState } from 'react';
import { formErrors } from '../../api/errors';
import { ConfirmButton } from '../../components/confirm-button';
import { ErrorMessage, StatusMessage } from '../../components/error-message';
import { FieldError, invalidField } from '../../components/field-error';
import { useRecovery } from '../../hooks/use-recovery';
import { formatTime, utcInputToIso } from '../../utils/format';

/** The API's fields this section shows: an error naming one is said beside it. */
const RECOVER_FIELDS: ReadonlySet<string> = new Set(['since']);

/** Why a recovery cannot start at `since` now (it runs from then until now: until after since), or undefined. */
function sinceProblem(since: string): string | undefined {
  if (Date.parse(since) < Date.now()) return undefined;
  return 'Choose a time in the past: a recovery sends again the failed deliveries from then until now.';
}

export function RecoverSection({ id }: { id: number }) {
  const [since, setSince] = useState('');
  /** What was wrong with `since` when last pressed, found here: the API is not asked. */
  const [refused, setRefused] = useState<string>();
  const field = useRef<HTMLInputElement>(null);
  const sinceIso = utcInputToIso(since);
  const recovery = useRecovery(id);
  const { byField, summary } = formErrors(recovery.error, RECOVER_FIELDS);
  const sinceError = refused ?? byField.get('since');
  const check = () => {
    const problem = sinceIso && sinceProblem(sinceIso);
    setRefused(problem);
    if (problem) {
      recovery.reset(); // what an earlier recovery said is not this one's answer
      field.current?.focus();
    }
    return !problem;
  };
  return (
    <section aria-labelledby="recover-heading">
      <h2 id="recover-heading">Recover failed deliveries</h2>
      <p>Sends again every event since the chosen time whose latest delivery to this subscription failed.</p>
      <div className="filters">
        <div>
          <label htmlFor="recover-since">Recover since (UTC)</label>
          <input
            id="recover-since"
            ref={field}
            type="datetime-local"
            value={since}
            onChange={(e) => setSince(e.target.value)}
            {...invalidField('recover-since', sinceError)}
          />
        </div>
        <ConfirmButton
          label="Recover failed deliveries"
          question={`Send again every failed delivery since ${sinceIso ? formatTime(sinceIso) : 'the chosen time'}?`}
          confirmLabel="Yes, send them again"
          check={check}
          onConfirm={() => sinceIso && recovery.recover(sinceIso)}
          disabled={!sinceIso}
        />
      </div>
      {/* Under the row, so the button stays level with the field. */}
      <FieldError fieldId="recover-since" error={sinceError} />
      <StatusMessage>{recovery.status}</StatusMessage>
      <ErrorMessage error={summary} />
    </section>
  );
}
