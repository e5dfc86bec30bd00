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

/** The pages behind the login: without a session, the login page, which comes back here after. */
export function RequireSession() {
  const { session } = useSession();
  const location = useLocation();
  if (!session) return <Navigate to="/login" replace state={{ from: location }} />;
  return <Outlet />;
}
