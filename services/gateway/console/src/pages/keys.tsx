import { useState } from 'preact/hooks';
import { api, ApiError, type SessionState } from '../api';
import { ConfirmButton, PageHeading, RoleNote, ShownOnce, Time } from '../ui';
import { may } from '../permissions';
import { timeZone, when } from '../model';

/** The lender's API key: rotate it, see the new one once; this session moves to the new key. */
export function KeysPage({ session, onSessionChange }: { session: SessionState; onSessionChange: () => void }) {
  const [rotated, setRotated] = useState<string | null>(null);
  const [error, setError] = useState<{ status: number; message: string } | null>(null);
  function rotate() {
    setError(null);
    api.rotateKey().then(
      (result) => setRotated(result.apiKey),
      (e: unknown) =>
        setError(e instanceof ApiError ? { status: e.status, message: e.message } : { status: 0, message: String(e) }),
    );
  }
  return (
    <>
      <PageHeading>Keys and time zone</PageHeading>
      <section aria-labelledby="api-key-heading">
        <h2 id="api-key-heading">API key</h2>
        <p>
          Your backend sends the API key in <code>x-api-key</code>. It is stored only as a hash, so it cannot be shown
          again; a new one can be made here. Client id: <code>{session.clientId}</code>. This sign-in lasts until{' '}
          <Time iso={session.expiresAt} />.
        </p>
        {may(session, 'developer') ? (
          <ConfirmButton
            label="Rotate API key"
            confirmLabel="Rotate the key now"
            warning="The current key stops working at once, for every backend that uses it."
            onConfirm={rotate}
            disabled={rotated !== null}
          />
        ) : (
          <RoleNote permission="developer" what="rotate the API key" />
        )}
        {error ? (
          <p class="notice notice-error" role="alert">
            {error.status === 404 || error.status === 405
              ? 'Key rotation is not available on this gateway.'
              : `The key was not rotated: ${error.message}`}
          </p>
        ) : null}
        {rotated ? (
          <ShownOnce label="New API key" value={rotated}>
            <p>The old key no longer works. This console session now uses the new key.</p>
            <button
              type="button"
              onClick={() => {
                setRotated(null);
                onSessionChange();
              }}
            >
              I have stored the new key
            </button>
          </ShownOnce>
        ) : null}
      </section>
      <TimeZoneSetting session={session} onSessionChange={onSessionChange} />
    </>
  );
}

/** Every IANA zone this browser knows, for the field's suggestions. */
const knownZones = (): string[] => {
  const intl = Intl as unknown as { supportedValuesOf?: (key: string) => string[] };
  return intl.supportedValuesOf ? intl.supportedValuesOf('timeZone') : [];
};

/**
 * The lender's time zone: the days of the list's filter and of the portfolio, and the times the
 * console shows (with UTC on hover). Set with the account, so by an owner or a developer.
 */
function TimeZoneSetting({ session, onSessionChange }: { session: SessionState; onSessionChange: () => void }) {
  const [state, setState] = useState<{ busy: boolean; message?: string; failed?: boolean }>({ busy: false });
  const current = session.timeZone ?? timeZone();
  function save(event: Event) {
    event.preventDefault();
    const typed = String(new FormData(event.currentTarget as HTMLFormElement).get('timeZone') ?? '').trim();
    setState({ busy: true });
    api.updateTimeZone(typed === '' ? null : typed).then(
      (client) => {
        setState({ busy: false, message: `Days and times are now in ${client.timeZone}.` });
        onSessionChange();
      },
      (e: unknown) => setState({ busy: false, failed: true, message: e instanceof ApiError ? e.message : String(e) }),
    );
  }
  return (
    <section aria-labelledby="time-zone-heading">
      <h2 id="time-zone-heading">Time zone</h2>
      <p>
        Days and times are in <strong>{current}</strong>: the list's and the portfolio's days, and every time shown (now{' '}
        {when(new Date().toISOString())}; hover a time for UTC).
      </p>
      {may(session, 'developer') ? (
        <form class="filters" onSubmit={save}>
          <div class="field">
            <label for="time-zone">Time zone (empty: Africa/Lagos)</label>
            {/* Not held to the loaded value: what is typed stays through a render. */}
            <input
              id="time-zone"
              name="timeZone"
              list="time-zones"
              defaultValue={current}
              autocomplete="off"
              spellcheck={false}
            />
            <datalist id="time-zones">
              {knownZones().map((zone) => (
                <option key={zone} value={zone} />
              ))}
            </datalist>
          </div>
          <button type="submit" disabled={state.busy}>
            Save time zone
          </button>
        </form>
      ) : (
        <RoleNote permission="developer" what="change the time zone" />
      )}
      {state.message ? (
        <p class={state.failed ? 'notice notice-error' : 'notice'} role={state.failed ? 'alert' : 'status'}>
          {state.message}
        </p>
      ) : null}
    </section>
  );
}
