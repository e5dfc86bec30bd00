import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { queryKeys } from '../api/query-keys';
import { useApi, useSession } from '../hooks/use-session';

/** Administrators: which tenant the portal shows (this picker is the only place that changes it). */
function TenantPicker() {
  const api = useApi();
  const { tenant, setTenant } = useSession();
  const known = useQuery({ queryKey: queryKeys.tenants, queryFn: api.tenants });
  const [draft, setDraft] = useState(tenant);
  const [params, setParams] = useSearchParams();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setDraft(draft.trim());
    setTenant(draft.trim());
    // Another tenant's list starts at its first page.
    if (params.has('page')) {
      const next = new URLSearchParams(params);
      next.delete('page');
      setParams(next);
    }
  };
  return (
    <form className="tenant" onSubmit={submit} aria-label="Tenant">
      <label htmlFor="tenant-input">Tenant (empty: all)</label>
      <input
        id="tenant-input"
        list="tenant-list"
        value={draft}
        onChange={(e) => setDraft(e.target.value)}
        autoComplete="off"
      />
      <datalist id="tenant-list">
        {(known.data ?? []).map((t) => (
          <option key={t} value={t} />
        ))}
      </datalist>
      <button type="submit">Switch tenant</button>
    </form>
  );
}

export function Header() {
  const { session, logout, tenant } = useSession();
  if (!session) return null;
  const { me } = session;
  return (
    <header className="top">
      <nav aria-label="Main">
        <Link to="/subscriptions" className="brand">
          Partner portal
        </Link>
        <Link to="/subscriptions">Subscriptions</Link>
      </nav>
      <div className="who">
        <span>
          {me.user}
          {me.isAdministrator ? ` (administrator${tenant ? `, tenant ${tenant}` : ', all tenants'})` : ''}
        </span>
        {me.isAdministrator && <TenantPicker />}
        <button type="button" onClick={logout}>
          Log out
        </button>
      </div>
    </header>
  );
}
