import { useState } from 'preact/hooks';
import { api, ApiError, type SessionState } from '../api';
import { roleName } from '../permissions';
import { PageHeading } from '../ui';

const messageOf = (e: unknown) => (e instanceof ApiError ? e.message : String(e));
type Outcome = { ok: boolean; message: string } | null;

function Said({ outcome }: { outcome: Outcome }) {
  if (!outcome) return null;
  return (
    <p class={outcome.ok ? 'notice' : 'notice notice-error'} role={outcome.ok ? 'status' : 'alert'}>
      {outcome.message}
    </p>
  );
}

/** A new password: the current one, the new one twice. The user's other sessions end. */
function PasswordForm() {
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [busy, setBusy] = useState(false);
  async function submit(event: Event) {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const field = (name: string) => (form.elements.namedItem(name) as HTMLInputElement).value;
    if (field('newPassword') !== field('newPasswordAgain')) {
      setOutcome({ ok: false, message: 'The two new passwords differ.' });
      return;
    }
    setBusy(true);
    setOutcome(null);
    try {
      await api.changePassword(field('currentPassword'), field('newPassword'));
      form.reset();
      setOutcome({ ok: true, message: 'Your password is changed; your sessions elsewhere have ended.' });
    } catch (e) {
      setOutcome({ ok: false, message: messageOf(e) });
    } finally {
      setBusy(false);
    }
  }
  return (
    <form class="stacked" onSubmit={(e) => void submit(e)}>
      <label for="current-password">Current password</label>
      <input id="current-password" name="currentPassword" type="password" autocomplete="current-password" required />
      <label for="changed-password">New password (at least 12 characters)</label>
      <input
        id="changed-password"
        name="newPassword"
        type="password"
        autocomplete="new-password"
        minLength={12}
        required
      />
      <label for="changed-password-again">New password again</label>
      <input
        id="changed-password-again"
        name="newPasswordAgain"
        type="password"
        autocomplete="new-password"
        minLength={12}
        required
      />
      <button type="submit" disabled={busy}>
        {busy ? 'Changing…' : 'Change password'}
      </button>
      <Said outcome={outcome} />
    </form>
  );
}

/**
 * A new authenticator app: the current password, then the new secret to add to the app and a
 * code it shows. The old authenticator works until the code is accepted.
 */
function AuthenticatorForm() {
  const [started, setStarted] = useState<{ totpSecret: string; otpauthUri: string; enrolment: string } | null>(null);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [busy, setBusy] = useState(false);
  async function run(event: Event, step: (form: HTMLFormElement) => Promise<void>) {
    event.preventDefault();
    setBusy(true);
    setOutcome(null);
    try {
      await step(event.currentTarget as HTMLFormElement);
    } catch (e) {
      setOutcome({ ok: false, message: messageOf(e) });
    } finally {
      setBusy(false);
    }
  }
  if (!started) {
    return (
      <form
        key="start"
        class="stacked"
        onSubmit={(e) =>
          void run(e, async (form) => {
            setStarted(await api.startTotp((form.elements.namedItem('currentPassword') as HTMLInputElement).value));
          })
        }
      >
        <p>
          A new phone, or an app to replace: add a new secret to it. Your current app keeps working until the new one is
          confirmed.
        </p>
        <label for="totp-password">Current password</label>
        <input id="totp-password" name="currentPassword" type="password" autocomplete="current-password" required />
        <button type="submit" disabled={busy}>
          Set up a new authenticator
        </button>
        <Said outcome={outcome} />
      </form>
    );
  }
  return (
    <form
      key="confirm"
      class="stacked"
      onSubmit={(e) =>
        void run(e, async (form) => {
          await api.confirmTotp(
            started.enrolment,
            (form.elements.namedItem('totpCode') as HTMLInputElement).value.trim(),
          );
          setStarted(null);
          setOutcome({
            ok: true,
            message:
              'The new authenticator is set up: sign in with its codes from now on. Your sessions elsewhere have ended.',
          });
        })
      }
    >
      <p>
        Add this secret to the authenticator app (or open the link on the phone), then enter the 6-digit code it shows.
        It must be confirmed within ten minutes.
      </p>
      <p>
        Secret:{' '}
        <code class="secret" data-testid="new-totp-secret">
          {started.totpSecret}
        </code>
      </p>
      <p>
        <a href={started.otpauthUri}>Open in an authenticator app</a>
      </p>
      <label for="new-totp-code">Code from the new app</label>
      <input
        id="new-totp-code"
        name="totpCode"
        inputMode="numeric"
        autocomplete="one-time-code"
        pattern="[0-9]{6}"
        required
      />
      <button type="submit" disabled={busy}>
        Confirm the new authenticator
      </button>
      <button type="button" onClick={() => setStarted(null)}>
        Cancel
      </button>
      <Said outcome={outcome} />
    </form>
  );
}

/** The signed-in user's own account: who they are, and their password and authenticator. */
export function AccountPage({ session }: { session: SessionState }) {
  const user = session.user;
  if (!user) {
    return (
      <>
        <PageHeading>Your account</PageHeading>
        <p>This console is signed in with the API key: it has no password or authenticator of its own.</p>
      </>
    );
  }
  return (
    <>
      <PageHeading>Your account</PageHeading>
      <p>
        <strong>{user.email}</strong>, {roleName(user.role)} at <strong>{session.name}</strong>.
      </p>
      <section aria-labelledby="password-heading">
        <h2 id="password-heading">Password</h2>
        <PasswordForm />
      </section>
      <section aria-labelledby="authenticator-heading">
        <h2 id="authenticator-heading">Authenticator app</h2>
        <AuthenticatorForm />
      </section>
    </>
  );
}
