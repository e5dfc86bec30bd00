import { useEffect, useRef } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { Header } from '../components/header';
import { useSession } from '../hooks/use-session';

/** Every page: the skip link, the header, and the page in <main>. */
export function Layout() {
  const { pathname } = useLocation();
  const main = useRef<HTMLElement>(null);

  // A new page: focus its heading, so keyboard and screen-reader users start there.
  useEffect(() => {
    const heading = main.current?.querySelector('h1');
    if (heading && !main.current?.contains(document.activeElement)) heading.focus();
  }, [pathname]);

  return (
    <>
      <a href="#main" className="skip">
        Skip to content
      </a>
      <Header />
      <main id="main" ref={main}>
        <Outlet />
      </main>
    </>
  );
}

/**
 * The pages behind the login: without a session, the login page, which comes back here after (a deep
 * link, an expired session), unless the session was ended by a logout: whoever logs in next on this
 * tab starts at the list, not on the page the last user had open.
 */
export function RequireSession() {
  const { session, loggedOut } = useSession();
  const location = useLocation();
  if (!session) return <Navigate to="/login" replace state={loggedOut ? undefined : { from: location }} />;
  return <Outlet />;
}
