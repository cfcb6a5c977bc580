import { useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import { when } from '../model';
import { Loading, PageHeading, useLoad } from '../ui';
import { ROLE_NAMES } from './users';

/**
 * An invitation link: the invitee sets a password and enrols an authenticator app with the
 * secret shown (or its otpauth URI), confirming it with a current code.
 */
export function InvitationPage({ token, onDone }: { token: string; onDone: (notice: string) => void }) {
  const [loaded] = useLoad(() => api.invitation(token), `invitation:${token}`);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const password = (form.elements.namedItem('password') as HTMLInputElement).value;
    const repeated = (form.elements.namedItem('password-again') as HTMLInputElement).value;
    const code = (form.elements.namedItem('totpCode') as HTMLInputElement).value.trim();
    setError(null);
    if (password !== repeated) {
      setError('The two passwords differ.');
      return;
    }
    setBusy(true);
    try {
      await api.acceptInvitation(token, password, code || undefined);
      onDone('Your account is ready: sign in with your e-mail address and password.');
    } catch (e) {
      setError(e instanceof ApiError ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" class="sign-in">
      <PageHeading>Accept your invitation</PageHeading>
      {loaded.state === 'loading' ? <Loading what="the invitation" /> : null}
      {loaded.state === 'error' ? (
        <p class="notice notice-error" role="alert">
          {loaded.error.message}
        </p>
      ) : null}
      {loaded.state === 'ok' ? (
        <form onSubmit={(e) => void submit(e)} aria-describedby="invitation-help">
          <p id="invitation-help">
            <strong>{loaded.value.email}</strong> is invited to <strong>{loaded.value.lenderName}</strong> as{' '}
            {ROLE_NAMES[loaded.value.role]}, until {when(loaded.value.expiresAt)}.
          </p>
          <label for="new-password">Password (at least 12 characters)</label>
          <input
            id="new-password"
            name="password"
            type="password"
            autocomplete="new-password"
            minLength={12}
            required
          />
          <label for="new-password-again">Password again</label>
          <input
            id="new-password-again"
            name="password-again"
            type="password"
            autocomplete="new-password"
            minLength={12}
            required
          />
          <h2 id="totp-heading">Authenticator app</h2>
          <p>
            Add this account to an authenticator app with the secret below (or open the link on the phone), then enter
            the 6-digit code it shows.{' '}
            {loaded.value.totpRequired
              ? 'This lender requires it.'
              : 'Recommended; without it the password alone signs in.'}
          </p>
          <p>
            Secret:{' '}
            <code class="secret" data-testid="totp-secret">
              {loaded.value.totpSecret}
            </code>
          </p>
          <p>
            <a href={loaded.value.otpauthUri}>Open in an authenticator app</a>
          </p>
          <label for="enrol-code">Code from the app</label>
          <input
            id="enrol-code"
            name="totpCode"
            inputMode="numeric"
            autocomplete="one-time-code"
            pattern="[0-9]{6}"
            required={loaded.value.totpRequired}
          />
          <button type="submit" disabled={busy}>
            {busy ? 'Saving…' : 'Set password and finish'}
          </button>
          {error ? (
            <p class="notice notice-error" role="alert">
              {error}
            </p>
          ) : null}
        </form>
      ) : null}
    </main>
  );
}
