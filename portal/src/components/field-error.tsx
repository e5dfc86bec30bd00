/** The id of what is wrong with a field, for its aria-describedby. */
const errorId = (fieldId: string) => `${fieldId}-error`;

/** The attributes that mark a control invalid and link it to its error (FieldError); none without one. */
export const invalidField = (fieldId: string, error: string | undefined) =>
  error ? { 'aria-invalid': true, 'aria-describedby': errorId(fieldId) } : {};

/** What is wrong with a field, beside it; the field points here with invalidField. */
export function FieldError({ fieldId, error }: { fieldId: string; error: string | undefined }) {
  if (!error) return null;
  return (
    <p id={errorId(fieldId)} className="field-error">
      {error}
    </p>
  );
}
