import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import type { FormEvent } from 'react';
import { Navigate, useLocation } from 'react-router';
import type { Location } from 'react-router';
import { ApiError } from '../api/errors';
import { ErrorMessage } from '../components/error-message';
import { useDocumentTitle } from '../hooks/use-document-title';
import { useApi, useSession } from '../hooks/use-session';

/** A 401 at login is the credentials (or a disabled account), not an expired session. */
function LoginError({ error }: { error: unknown }) {
  if (!(error instanceof ApiError && error.status === 401)) return <ErrorMessage error={error} />;
  return (
    <p className="error" role="alert">
      Wrong e-mail or password, or the account is disabled.
    </p>
  );
}

export function LoginPage() {
  const api = useApi();
  const { session, login, notice } = useSession();
  const location = useLocation();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const signIn = useMutation({
    mutationFn: async () => {
      const { token } = await api.login(email, password);
      login({ token, me: await api.me(token) });
    },
  });
  useDocumentTitle('Log in');

  // A deep link opened before logging in (e.g. a link an operator sent) is where the login leads.
  const from = (location.state as { from?: Location } | null)?.from;
  if (session) return <Navigate to={from ? `${from.pathname}${from.search}` : '/subscriptions'} replace />;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate();
  };
  return (
    <div className="narrow">
      <h1 tabIndex={-1}>Log in to the partner portal</h1>
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      <form onSubmit={submit}>
        <label htmlFor="email">E-mail</label>
        <input
          id="email"
          type="email"
          autoComplete="username"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
        <label htmlFor="password">Password</label>
        <input
          id="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <button type="submit" className="primary" disabled={signIn.isPending}>
          Log in
        </button>
      </form>
      <LoginError error={signIn.error} />
    </div>
  );
}
