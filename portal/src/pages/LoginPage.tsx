import { useState } from 'react';
import { ApiError } from '../api';
import { ErrorMessage, usePortal, useSubmit } from '../portal';

export function LoginPage() {
  const { api, login, notice } = usePortal();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { error, busy, submit } = useSubmit(async () => {
    const { token } = await api.login(email, password);
    login({ token, me: await api.me(token) });
  });

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
        <button type="submit" className="primary" disabled={busy}>
          Log in
        </button>
      </form>
      {error instanceof ApiError && error.status === 401 ? (
        <p className="error" role="alert">
          Wrong e-mail or password, or the account is disabled.
        </p>
      ) : (
        <ErrorMessage error={error} />
      )}
    </div>
  );
}
