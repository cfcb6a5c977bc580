import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, onSignedOut, type SessionState, type StaffRole } from './api';
import { AccountPage } from './pages/account';
import { ApplicationPage } from './pages/application';
import { ApplicationsPage } from './pages/applications';
import { PortfolioPage } from './pages/portfolio';
import { PerformancePage } from './pages/performance';
import { setTimeZone } from './model';
import { KeysPage } from './pages/keys';
import { PolicyPage } from './pages/policy';
import { ReviewsPage } from './pages/reviews';
import { InvitationPage } from './pages/invitation';
import { UsersPage } from './pages/users';
import { WebhooksPage } from './pages/webhooks';
import { useLocation, type Location } from './nav';
import { SessionContext } from './session';
import { PageHeading, RoleNote } from './ui';
import { may } from './permissions';
import './styles.css';

/** Runs a sign-in; a lapsed sign-in token (the page stayed open long) is renewed once. */
async function withFreshToken<T>(attempt: () => Promise<T>): Promise<T> {
  try {
    return await attempt();
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 403 && /CSRF/.test(e.message))) throw e;
    await api.session();
    return attempt();
  }
}

function SignIn(props: { onSignedIn: (state: SessionState) => void; notice?: string }) {
  const [error, setError] = useState<string | null>(null);
  const [keyError, setKeyError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submitStaff(event: Event) {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const field = (name: string) => form.elements.namedItem(name) as HTMLInputElement;
    setBusy(true);
    setError(null);
    try {
      const state = await withFreshToken(() =>
        api.signInAsStaff(
          field('email').value.trim(),
          field('password').value,
          field('totpCode').value.trim() || undefined,
        ),
      );
      props.onSignedIn(state);
    } catch (e) {
      field('password').value = '';
      field('totpCode').value = '';
      setError(e instanceof ApiError ? e.message : String(e));
      field('password').focus();
    } finally {
      setBusy(false);
    }
  }

  async function submitKey(event: Event) {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const field = form.elements.namedItem('apiKey') as HTMLInputElement;
    setBusy(true);
    setKeyError(null);
    try {
      // The key goes to the gateway once and is kept by nobody here: the field is emptied.
      const key = field.value.trim();
      const state = await withFreshToken(() => api.signIn(key));
      field.value = '';
      props.onSignedIn(state);
    } catch (e) {
      field.value = '';
      setKeyError(e instanceof ApiError ? e.message : String(e));
      field.focus();
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" class="sign-in">
      <PageHeading>Sign in to the lender console</PageHeading>
      {props.notice ? (
        <p class="notice" role="status">
          {props.notice}
        </p>
      ) : null}
      <form
        onSubmit={(e) => void submitStaff(e)}
        method="post"
        action="/console/session"
        aria-describedby={error ? 'sign-in-error' : undefined}
      >
        <label for="email">E-mail address</label>
        <input
          id="email"
          name="email"
          type="email"
          autocomplete="username"
          spellcheck={false}
          required
          aria-invalid={error ? 'true' : undefined}
        />
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
          aria-invalid={error ? 'true' : undefined}
        />
        <label for="totp-code">Authenticator code (if you enrolled one)</label>
        <input
          id="totp-code"
          name="totpCode"
          inputMode="numeric"
          autocomplete="one-time-code"
          pattern="[0-9]{6}"
          aria-describedby="totp-help"
        />
        <p id="totp-help" class="hint">
          The 6-digit code your authenticator app shows now.
        </p>
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        {error ? (
          <p id="sign-in-error" class="notice notice-error" role="alert">
            {error}
          </p>
        ) : null}
      </form>
      <details>
        <summary>Sign in with the API key (a lender whose first owner has no account yet)</summary>
        <form onSubmit={(e) => void submitKey(e)} method="post" action="/console/session" aria-describedby="key-help">
          <p id="key-help">
            Use your API key (it starts with <code>lk_</code>). The console keeps nothing of it; once your first owner
            has an account, staff sign in with their own.
          </p>
          <label for="api-key">API key</label>
          <input
            id="api-key"
            name="apiKey"
            type="password"
            autocomplete="off"
            spellcheck={false}
            required
            aria-invalid={keyError ? 'true' : undefined}
            aria-describedby={keyError ? 'key-error' : undefined}
          />
          <button type="submit" disabled={busy}>
            Sign in with the key
          </button>
          {keyError ? (
            <p id="key-error" class="notice notice-error" role="alert">
              {keyError}
            </p>
          ) : null}
        </form>
      </details>
    </main>
  );
}

/** The pages, and who sees them: everyone, a developer's, an owner's (a console opened with the API key sees all). */
const NAV = [
  ['/portfolio', 'Portfolio', null],
  ['/performance', 'Performance', null],
  ['/applications', 'Applications', null],
  ['/reviews', 'Reviews', null],
  ['/webhooks', 'Webhooks', null],
  ['/keys', 'Keys', ['owner', 'developer']],
  ['/policy', 'Policy', null],
  ['/users', 'Users', ['owner']],
] as const;

const mayOpen = (session: SessionState, roles: readonly StaffRole[] | null) =>
  !roles || !session.user || roles.includes(session.user.role);

function Page({
  location,
  session,
  onSessionChange,
}: {
  location: Location;
  session: SessionState;
  onSessionChange: () => void;
}) {
  const detail = /^\/applications\/([^/]+)$/.exec(location.path);
  if (detail) return <ApplicationPage applicationId={decodeURIComponent(detail[1]!)} />;
  if (location.path === '/portfolio') return <PortfolioPage params={location.params} />;
  if (location.path === '/performance') return <PerformancePage params={location.params} />;
  if (location.path === '/applications') return <ApplicationsPage params={location.params} />;
  if (location.path === '/reviews') return <ReviewsPage params={location.params} />;
  if (location.path === '/webhooks') return <WebhooksPage params={location.params} />;
  if (location.path === '/keys') return <KeysPage session={session} onSessionChange={onSessionChange} />;
  if (location.path === '/policy') return <PolicyPage />;
  if (location.path === '/account') return <AccountPage session={session} />;
  if (location.path === '/users') {
    if (!may(session, 'users')) {
      return (
        <>
          <PageHeading>Users</PageHeading>
          <RoleNote permission="users" what="see or manage the lender's users" />
        </>
      );
    }
    return <UsersPage selfId={session.user?.userId ?? null} />;
  }
  return (
    <>
      <PageHeading>Page not found</PageHeading>
      <p>
        <a href="#/applications">Go to the applications</a>
      </p>
    </>
  );
}

function App() {
  const location = useLocation();
  const [session, setSession] = useState<SessionState | null>(null);
  const [notice, setNotice] = useState<string | undefined>();
  const [failure, setFailure] = useState<string | null>(null);

  const refresh = () =>
    api.session().then(
      (state) => {
        setFailure(null);
        setSession(state);
      },
      (e: unknown) => setFailure(e instanceof ApiError ? e.message : String(e)),
    );

  useEffect(() => {
    void refresh();
    return onSignedOut(() => {
      setNotice('Your session has ended; sign in again.');
      void refresh();
    });
  }, []);

  if (failure) {
    return (
      <main id="main">
        <PageHeading>The console is unavailable</PageHeading>
        <p class="notice notice-error" role="alert">
          {failure}
        </p>
        <button type="button" onClick={() => void refresh()}>
          Retry
        </button>
      </main>
    );
  }
  if (!session) return <p class="loading">Loading the console…</p>;
  const invitation = /^\/invitation\/([\w-]+)$/.exec(location.path);
  if (invitation) {
    return (
      <InvitationPage
        token={invitation[1]!}
        onDone={(text) => {
          setNotice(text);
          window.location.hash = '#/applications';
          void refresh();
        }}
      />
    );
  }
  if (!session.signedIn) {
    return (
      <SignIn
        notice={notice}
        onSignedIn={(state) => {
          setNotice(undefined);
          setSession(state);
        }}
      />
    );
  }

  // Times on every page are in the lender's time zone.
  setTimeZone(session.timeZone);
  const section = NAV.find(([path]) => location.path === path || location.path.startsWith(`${path}/`))?.[0];
  return (
    <>
      <a
        class="skip-link"
        href="#main"
        onClick={(e) => {
          e.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Lender console</span>
        <nav aria-label="Console">
          <ul>
            {NAV.filter(([, , roles]) => mayOpen(session, roles)).map(([path, label]) => (
              <li key={path}>
                <a href={`#${path}`} aria-current={section === path ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="who">
          {session.user ? (
            <>
              <strong>{session.user.email}</strong> ({session.user.role.replace('_', ' ')}) at{' '}
              <strong>{session.name}</strong>{' '}
              <a class="account-link" href="#/account" aria-current={location.path === '/account' ? 'page' : undefined}>
                Your account
              </a>
            </>
          ) : (
            <>
              Signed in as <strong>{session.name}</strong>
            </>
          )}
        </span>
        <button
          type="button"
          onClick={() => {
            void api.signOut().finally(() => {
              setNotice('You have signed out.');
              void refresh();
            });
          }}
        >
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <SessionContext.Provider value={session}>
          <Page location={location} session={session} onSessionChange={() => void refresh()} />
        </SessionContext.Provider>
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
