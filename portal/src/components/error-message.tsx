import { errorText } from '../api/errors';

export function ErrorMessage({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  return (
    <p className="error" role="alert">
      {errorText(error)}
    </p>
  );
}

/** A status line announced politely (aria-live), or nothing. */
export function StatusMessage({ children, className }: { children: React.ReactNode; className?: string }) {
  return (
    <div aria-live="polite">
      {children ? (
        <p role="status" className={className}>
          {children}
        </p>
      ) : null}
    </div>
  );
}
