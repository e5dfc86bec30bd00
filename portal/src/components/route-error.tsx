/** A rendering failure (the router's error boundary) shows words and a way back, never a blank page. */
export function RouteError() {
  return (
    <>
      <h1 tabIndex={-1}>Something went wrong</h1>
      <p role="alert">This page could not be shown. Reload the page to try again.</p>
    </>
  );
}
