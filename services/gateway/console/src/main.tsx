import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, onSignedOut, type SessionState } from './api';
import { ApplicationPage } from './pages/application';
import { ApplicationsPage } from './pages/applications';
import { KeysPage } from './pages/keys';
import { PolicyPage } from './pages/policy';
import { ReviewsPage } from './pages/reviews';
import { WebhooksPage } from './pages/webhooks';
import { useLocation, type Location } from './nav';
import { PageHeading } from './ui';
import './styles.css';

function SignIn(props: { onSignedIn: (state: SessionState) => void; notice?: string }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function submit(event: Event) {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const field = form.elements.namedItem('apiKey') as HTMLInputElement;
    setBusy(true);
    setError(null);
    try {
      // The key goes to the gateway once and is kept by nobody here: the field is emptied.
      const key = field.value.trim();
      let state: SessionState;
      try {
        state = await api.signIn(key);
      } catch (e) {
        // The sign-in token lapsed (the page stayed open long): take a fresh one, try once more.
        if (!(e instanceof ApiError && e.status === 403)) throw e;
        await api.session();
        state = await api.signIn(key);
      }
      field.value = '';
      props.onSignedIn(state);
    } catch (e) {
      field.value = '';
      setError(e instanceof ApiError ? e.message : String(e));
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
      <form onSubmit={submit} method="post" action="/console/session" aria-describedby="sign-in-help">
        <p id="sign-in-help">
          Use your API key (it starts with <code>lk_</code>). The console keeps it in a session cookie that scripts cannot read, and
          sends it to nothing but this gateway.
        </p>
        <label for="api-key">API key</label>
        <input id="api-key" name="apiKey" type="password" autocomplete="off" spellcheck={false} required aria-invalid={error ? 'true' : undefined} aria-describedby={error ? 'sign-in-error' : undefined} />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        {error ? (
          <p id="sign-in-error" class="notice notice-error" role="alert">
            {error}
          </p>
        ) : null}
      </form>
    </main>
  );
}

const NAV = [
  ['/applications', 'Applications'],
  ['/reviews', 'Reviews'],
  ['/webhooks', 'Webhooks'],
  ['/keys', 'Keys'],
  ['/policy', 'Policy'],
] as const;

function Page({ location, session, onSessionChange }: { location: Location; session: SessionState; onSessionChange: () => void }) {
  const detail = /^\/applications\/([^/]+)$/.exec(location.path);
  if (detail) return <ApplicationPage applicationId={decodeURIComponent(detail[1]!)} />;
  if (location.path === '/applications') return <ApplicationsPage params={location.params} />;
  if (location.path === '/reviews') return <ReviewsPage params={location.params} />;
  if (location.path === '/webhooks') return <WebhooksPage params={location.params} />;
  if (location.path === '/keys') return <KeysPage session={session} onSessionChange={onSessionChange} />;
  if (location.path === '/policy') return <PolicyPage />;
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

  const section = NAV.find(([path]) => location.path === path || location.path.startsWith(`${path}/`))?.[0];
  return (
    <>
      <a class="skip-link" href="#main" onClick={(e) => {
        e.preventDefault();
        document.getElementById('main')?.focus();
      }}>
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Lender console</span>
        <nav aria-label="Console">
          <ul>
            {NAV.map(([path, label]) => (
              <li key={path}>
                <a href={`#${path}`} aria-current={section === path ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="who">
          Signed in as <strong>{session.name}</strong>
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
        <Page location={location} session={session} onSessionChange={() => void refresh()} />
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
