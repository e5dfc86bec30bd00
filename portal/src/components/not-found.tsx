import { Link } from 'react-router';
import { useDocumentTitle } from '../hooks/use-document-title';

/** No page at this address. */
export function NotFound() {
  useDocumentTitle('Page not found');
  return (
    <>
      <h1 tabIndex={-1}>Page not found</h1>
      <p>
        There is no such page. <Link to="/subscriptions">Go to the subscriptions</Link>.
      </p>
    </>
  );
}
