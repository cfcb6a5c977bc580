import { useState } from 'preact/hooks';
import { api, ApiError, type ClientSettings, type ReplayResult } from '../api';
import { say } from '../labels';
import { deliverySummary, when } from '../model';
import { navigate } from '../nav';
import {
  Badge,
  ConfirmButton,
  FilterSelect,
  Loading,
  PageHeading,
  Problem,
  RoleNote,
  ShortId,
  ShownOnce,
  useLoad,
  type Loaded,
  Time,
} from '../ui';
import { may } from '../permissions';
import { useSession } from '../session';
import { RedeliverButton } from './application';

const EVENTS = [
  'account.linked',
  'account.enrichment_ready',
  'account.enrichment_failed',
  'application.ready_for_analysis',
  'application.decision',
  'application.failed',
  'application.abandoned',
  'application.review_completed',
];
const STATUSES = ['PENDING', 'DELIVERED', 'FAILED', 'SKIPPED'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const messageOf = (e: unknown) => (e instanceof ApiError ? e.message : String(e));

function Endpoint({ client, onSaved }: { client: ClientSettings; onSaved: () => void }) {
  const [state, setState] = useState<{ busy: boolean; message?: string; failed?: boolean }>({ busy: false });
  // What the lender typed, kept until it is saved: a refused URL stays in the field to be mended.
  const [typed, setTyped] = useState<string | null>(null);
  const session = useSession();
  function save(event: Event) {
    event.preventDefault();
    const url = String(new FormData(event.currentTarget as HTMLFormElement).get('webhookUrl') ?? '').trim();
    setState({ busy: true });
    api.updateWebhookUrl(url || null).then(
      () => {
        setState({ busy: false, message: 'Webhook URL saved' });
        setTyped(null);
        onSaved();
      },
      (e: unknown) => setState({ busy: false, failed: true, message: messageOf(e) }),
    );
  }
  if (!may(session, 'developer')) {
    return <p>Webhook URL: {client.webhookUrl ? <code>{client.webhookUrl}</code> : 'none (no deliveries are made)'}</p>;
  }
  return (
    <form onSubmit={save} class="stacked">
      <label for="webhook-url">Webhook URL</label>
      <input
        id="webhook-url"
        name="webhookUrl"
        type="url"
        value={typed ?? client.webhookUrl ?? ''}
        onInput={(e) => setTyped((e.currentTarget as HTMLInputElement).value)}
        size={60}
        aria-invalid={state.failed ? 'true' : undefined}
        aria-describedby={state.failed ? 'webhook-url-error webhook-url-help' : 'webhook-url-help'}
      />
      {state.message && state.failed ? (
        <p id="webhook-url-error" class="field-error" role="alert">
          Not saved: {state.message}
        </p>
      ) : null}
      <p id="webhook-url-help" class="hint">
        Events are posted here, signed with the webhook secret. Leave it empty to stop deliveries.
      </p>
      <button type="submit" disabled={state.busy}>
        Save URL
      </button>
      {state.message && !state.failed ? (
        <p class="notice" role="status">
          {state.message}
        </p>
      ) : null}
    </form>
  );
}

function Secret({ client, onRotated }: { client: ClientSettings | null; onRotated: () => void }) {
  const [rotated, setRotated] = useState<{ webhookSecret: string; previousSecretValidUntil: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [overlap, setOverlap] = useState('');
  const changes = may(useSession(), 'developer');
  const previous = client?.webhookSecrets.filter((s) => s.validUntil !== null) ?? [];
  function rotate() {
    setError(null);
    const hours = overlap.trim() === '' ? undefined : Number(overlap);
    if (hours !== undefined && (!Number.isFinite(hours) || hours < 0 || hours > 168)) {
      setError('The overlap must be a number of hours from 0 to 168');
      return;
    }
    api.rotateWebhookSecret(hours === undefined ? undefined : Math.round(hours * 3600)).then(
      (result) => {
        setRotated(result);
        onRotated();
      },
      (e: unknown) => setError(messageOf(e)),
    );
  }
  return (
    <>
      {client ? (
        <p>
          {previous.length === 0
            ? 'One secret signs every delivery.'
            : `Previous secrets still sign deliveries (header x-signature-previous) until ${previous.map((s) => when(s.validUntil)).join(', ')}.`}
        </p>
      ) : null}
      {changes ? (
        <>
          <div class="field">
            <label for="overlap">Overlap of the previous secret, in hours (empty: the gateway's default)</label>
            <input
              id="overlap"
              type="number"
              min={0}
              max={168}
              step="any"
              inputMode="decimal"
              value={overlap}
              onInput={(e) => setOverlap((e.currentTarget as HTMLInputElement).value)}
            />
          </div>
          <ConfirmButton
            label="Rotate webhook secret"
            confirmLabel="Rotate the secret now"
            warning="A new secret signs deliveries from now on; the current one keeps signing them too until the overlap ends, so receivers can switch."
            onConfirm={rotate}
          />
        </>
      ) : null}
      {error ? (
        <p class="notice notice-error" role="alert">
          {error}
        </p>
      ) : null}
      {rotated ? (
        <ShownOnce label="New webhook secret" value={rotated.webhookSecret}>
          <p data-testid="overlap-end">
            The previous secret keeps signing until <Time iso={rotated.previousSecretValidUntil} />.
          </p>
        </ShownOnce>
      ) : null}
    </>
  );
}

function Replay() {
  const [result, setResult] = useState<{ value?: ReplayResult; error?: string } | null>(null);
  function replay(event: Event) {
    event.preventDefault();
    const since = String(new FormData(event.currentTarget as HTMLFormElement).get('since') ?? '');
    const date = new Date(`${since}:00Z`);
    if (!since || Number.isNaN(date.getTime())) {
      setResult({ error: 'Give the time to replay from' });
      return;
    }
    api.replay(date.toISOString()).then(
      (value) => setResult({ value }),
      (e: unknown) => setResult({ error: messageOf(e) }),
    );
  }
  return (
    <form onSubmit={replay} class="stacked">
      <label for="since">Replay failed deliveries since (UTC)</label>
      <input id="since" name="since" type="datetime-local" required />
      <button type="submit">Replay failed deliveries</button>
      {result?.value ? (
        <p class="notice" role="status">
          {result.value.count === 1 ? '1 delivery' : `${result.value.count} deliveries`} queued again
          {result.value.more ? '; more remain, replay again to queue them' : ''}.
        </p>
      ) : null}
      {result?.error ? (
        <p class="notice notice-error" role="alert">
          {result.error}
        </p>
      ) : null}
    </form>
  );
}

function DeliveryLog({ params }: { params: URLSearchParams }) {
  const status = params.get('status') ?? '';
  const event = params.get('event') ?? '';
  const applicationId = params.get('applicationId') ?? '';
  const cursor = params.get('cursor');
  const idIsValid = applicationId === '' || UUID.test(applicationId);
  const [page, reload] = useLoad(
    () =>
      idIsValid
        ? api.deliveries({
            status: status || undefined,
            event: event || undefined,
            applicationId: applicationId || undefined,
            cursor,
            limit: 20,
          })
        : Promise.resolve({ data: [], nextCursor: null }),
    params.toString(),
  );
  function filter(e: Event) {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const value = (name: string) => String(form.get(name) ?? '').trim() || undefined;
    navigate('/webhooks', { status: value('status'), event: value('event'), applicationId: value('applicationId') });
  }
  return (
    <>
      <form class="filters" onSubmit={filter} aria-label="Delivery log filters">
        <FilterSelect
          id="delivery-status"
          label="Status"
          name="status"
          value={status}
          options={STATUSES}
          words={(s) => say(s, 'delivery')}
        />
        <FilterSelect
          id="delivery-event"
          label="Event"
          name="event"
          value={event}
          options={EVENTS}
          words={(e) => say(e, 'event')}
        />
        <div class="field">
          <label for="delivery-application">Application id</label>
          <input
            id="delivery-application"
            name="applicationId"
            value={applicationId}
            size={38}
            autocomplete="off"
            spellcheck={false}
            aria-invalid={idIsValid ? undefined : 'true'}
            aria-describedby={idIsValid ? undefined : 'delivery-application-error'}
          />
          {idIsValid ? null : (
            <p id="delivery-application-error" class="field-error" role="alert">
              “{applicationId}” is not an application id: an id has 36 characters, such as
              0c7d414c-3e66-4b43-b3b1-8747a2a8e6bd.
            </p>
          )}
        </div>
        <button type="submit">Filter</button>
      </form>
      {page.state === 'loading' ? <Loading what="the delivery log" /> : null}
      {page.state === 'error' ? <Problem error={page.error} what="The webhook delivery log" /> : null}
      {page.state === 'ok' && idIsValid ? (
        <>
          <table class="data cards">
            <caption>
              {page.value.data.length === 0 ? 'No delivery matches.' : 'Webhook deliveries, newest first'}
            </caption>
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Event</th>
                <th scope="col">Application</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts and answers</th>
                <th scope="col">Action</th>
              </tr>
            </thead>
            <tbody>
              {page.value.data.map((d) => (
                <tr key={d.id}>
                  <td data-label="Created" class="when">
                    <Time iso={d.createdAt} />
                  </td>
                  <td data-label="Event">
                    <span title={d.event}>{say(d.event, 'event')}</span>
                  </td>
                  <td data-label="Application">
                    <ShortId id={d.applicationId} href={`#/applications/${d.applicationId}`} what="application" />
                  </td>
                  <td data-label="Status">
                    <Badge value={d.status} kind="delivery" />
                  </td>
                  <td data-label="Attempts">
                    {deliverySummary(d)}
                    {d.reason ? (
                      <span class="detail" title={d.reason}>
                        {' '}
                        ({say(d.reason, 'deliveryReason')})
                      </span>
                    ) : null}
                  </td>
                  <td data-label="Action">
                    <RedeliverButton delivery={d} onDone={reload} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <nav class="pager" aria-label="Pages of deliveries">
            <button
              type="button"
              disabled={!cursor}
              onClick={() =>
                navigate('/webhooks', {
                  status: status || undefined,
                  event: event || undefined,
                  applicationId: applicationId || undefined,
                })
              }
            >
              First page
            </button>
            <button
              type="button"
              disabled={!page.value.nextCursor}
              onClick={() =>
                navigate('/webhooks', {
                  status: status || undefined,
                  event: event || undefined,
                  applicationId: applicationId || undefined,
                  cursor: page.value.nextCursor ?? undefined,
                })
              }
            >
              Next page
            </button>
          </nav>
        </>
      ) : null}
    </>
  );
}

function EndpointSection({ client, reload }: { client: Loaded<ClientSettings>; reload: () => void }) {
  if (client.state === 'loading') return <Loading what="the webhook settings" />;
  if (client.state === 'error') return <Problem error={client.error} what="The webhook endpoint setting" />;
  return <Endpoint client={client.value} onSaved={reload} />;
}

/** Webhook settings of the lender: endpoint, signing secret, delivery log, redelivery and replay. */
export function WebhooksPage({ params }: { params: URLSearchParams }) {
  const [client, reload] = useLoad(() => api.client(), 'client');
  const changes = may(useSession(), 'developer');
  return (
    <>
      <PageHeading>Webhooks</PageHeading>
      <RoleNote
        permission="developer"
        what="change the webhook endpoint or secret, or redeliver or replay deliveries"
      />
      <section aria-labelledby="endpoint-heading">
        <h2 id="endpoint-heading">Endpoint</h2>
        <EndpointSection client={client} reload={reload} />
      </section>
      <section aria-labelledby="secret-heading">
        <h2 id="secret-heading">Signing secret</h2>
        <Secret client={client.state === 'ok' ? client.value : null} onRotated={reload} />
      </section>
      <section aria-labelledby="log-heading">
        <h2 id="log-heading">Delivery log</h2>
        <DeliveryLog params={params} />
      </section>
      {changes ? (
        <section aria-labelledby="replay-heading">
          <h2 id="replay-heading">Replay</h2>
          <Replay />
        </section>
      ) : null}
    </>
  );
}
