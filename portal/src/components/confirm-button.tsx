import { useState } from 'react';

/**
 * A button that asks first, in a modal <dialog> (focus moves into it, Escape cancels, focus comes
 * back to the button).
 */
export function ConfirmButton(props: {
  label: string;
  question: string;
  confirmLabel: string;
  onConfirm: () => void;
  className?: string;
  disabled?: boolean;
  /** Run when pressed, before asking: false asks nothing (the caller shows why). */
  check?: () => boolean;
}) {
  const [dialog, setDialog] = useState<HTMLDialogElement | null>(null);
  const ask = () => {
    if (props.check && !props.check()) return;
    dialog?.showModal();
  };
  return (
    <>
      <button type="button" className={props.className} disabled={props.disabled} onClick={ask}>
        {props.label}
      </button>
      <dialog ref={setDialog} aria-label={props.label}>
        <p>{props.question}</p>
        <div className="actions">
          <button
            type="button"
            className="danger"
            onClick={() => {
              dialog?.close();
              props.onConfirm();
            }}
          >
            {props.confirmLabel}
          </button>
          <button type="button" onClick={() => dialog?.close()}>
            Cancel
          </button>
        </div>
      </dialog>
    </>
  );
}
