import { useState } from 'preact/hooks';
import { api, ApiError, type SessionState } from '../api';
import { ConfirmButton, PageHeading, RoleNote, ShownOnce, Time } from '../ui';
import { may } from '../permissions';

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
      <PageHeading>Keys</PageHeading>
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
    </>
  );
}
