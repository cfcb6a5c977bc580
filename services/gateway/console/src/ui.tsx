import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api';
import { may, notAllowed, type Permission } from './permissions';
import { useSession } from './session';
import { labelOf, type LabelKind } from './labels';
import { when, whenUtc } from './model';

/** The outcome of a call a page waits for. */
export type Loaded<T> = { state: 'loading' } | { state: 'ok'; value: T } | { state: 'error'; error: ApiError };

const asApiError = (error: unknown) => (error instanceof ApiError ? error : new ApiError(0, String(error)));

/**
 * Runs `load` when `key` changes; `reload()` runs it again. An answer to another key is never
 * shown for this one; the same key asked again keeps its last answer until the new one comes.
 */
export function useLoad<T>(load: () => Promise<T>, key: string): [Loaded<T>, () => void] {
  const [result, setResult] = useState<{ key: string; loaded: Loaded<T> } | null>(null);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (value) => live && setResult({ key, loaded: { state: 'ok', value } }),
      (error: unknown) => live && setResult({ key, loaded: { state: 'error', error: asApiError(error) } }),
    );
    return () => {
      live = false;
    };
  }, [key, round]);
  return [result && result.key === key ? result.loaded : { state: 'loading' }, () => setRound((n) => n + 1)];
}

/** How often a live page asks again: soon after a change, less often while nothing changes. */
export const LIVE_POLL = { firstMs: 2_000, factor: 1.5, maxMs: 30_000 } as const;

/** The wait before the next look, given the last one and whether it found a change. */
export function nextPollMs(lastMs: number | null, changed: boolean): number {
  if (lastMs === null || changed) return LIVE_POLL.firstMs;
  return Math.min(LIVE_POLL.maxMs, Math.round(lastMs * LIVE_POLL.factor));
}

/**
 * `useLoad` for a page that follows changes: after each answer it asks again, soon while the
 * answers change and backing off while they do not (and after a failure); it stops while the
 * tab is hidden and asks at once when it is shown again. The last answer stays on the page
 * while the next is fetched. Also gives when the page last had an answer.
 */
export function useLive<T>(load: () => Promise<T>, key: string): [Loaded<T>, () => void, string | null] {
  const [result, setResult] = useState<{ key: string; loaded: Loaded<T>; at: string; text: string } | null>(null);
  const [round, setRound] = useState(0);
  const last = useRef<{ key: string; text: string | null; waitMs: number | null }>({ key, text: null, waitMs: null });
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let busy = false;
    if (last.current.key !== key) last.current = { key, text: null, waitMs: null };
    const look = () => {
      timer = undefined;
      if (busy) return;
      busy = true;
      load().then(
        (value) => {
          busy = false;
          if (!live) return;
          const text = JSON.stringify(value);
          const changed = text !== last.current.text;
          last.current = { key, text, waitMs: nextPollMs(last.current.waitMs, changed) };
          // An unchanged answer only moves the time: the page keeps what it shows.
          setResult((prev) =>
            prev && prev.key === key && !changed
              ? { ...prev, at: new Date().toISOString() }
              : { key, loaded: { state: 'ok', value }, at: new Date().toISOString(), text },
          );
          schedule();
        },
        (error: unknown) => {
          busy = false;
          if (!live) return;
          last.current = { ...last.current, waitMs: nextPollMs(last.current.waitMs, false) };
          // A failed look after a good one keeps the good one on the page.
          setResult((prev) =>
            prev && prev.key === key && prev.loaded.state === 'ok'
              ? prev
              : { key, loaded: { state: 'error', error: asApiError(error) }, at: new Date().toISOString(), text: '' },
          );
          schedule();
        },
      );
    };
    const schedule = () => {
      if (!live || document.hidden) return;
      timer = setTimeout(look, last.current.waitMs ?? LIVE_POLL.firstMs);
    };
    const onVisibility = () => {
      if (document.hidden) {
        if (timer !== undefined) clearTimeout(timer);
        timer = undefined;
      } else if (timer === undefined) {
        last.current = { ...last.current, waitMs: null };
        look();
      }
    };
    document.addEventListener('visibilitychange', onVisibility);
    look();
    return () => {
      live = false;
      if (timer !== undefined) clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [key, round]);
  const current = result && result.key === key ? result : null;
  return [current ? current.loaded : { state: 'loading' }, () => setRound((n) => n + 1), current ? current.at : null];
}

/** "Updated 2026-11-27 09:40:01 WAT; the page follows changes": when a live page last had an answer. */
export function Updated({ at }: { at: string | null }) {
  if (!at) return null;
  return (
    <p class="updated hint">
      Updated <Time iso={at} />; the page follows changes.
    </p>
  );
}

/** A failed call in words: a route this gateway lacks is "not available". */
export function Problem({ error, what }: { error: ApiError; what: string }) {
  if (error.status === 404 || error.status === 405) {
    return (
      <p class="notice" role="status">
        {what} is not available on this gateway.
      </p>
    );
  }
  return (
    <p class="notice notice-error" role="alert">
      {what} could not be loaded: {error.message}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" role="status">
      Loading {what}…
    </p>
  );
}

/** A heading that takes the focus when its page opens, so keyboard and screen-reader users land on it. */
export function PageHeading({ children }: { children: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    ref.current?.focus();
  }, []);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children}
    </h1>
  );
}

/**
 * A code shown as words with a tone (labels.ts), never by colour alone; the code itself is its
 * tooltip. `kind` says what the code is (an application status, a delivery's...), as some codes
 * (FAILED, PENDING) mean different things.
 */
export function Badge({ value, kind }: { value: string; kind?: LabelKind }) {
  const { text, tone } = labelOf(value, kind);
  return (
    <span class={`badge badge-${tone}`} title={value}>
      {text}
    </span>
  );
}

/** A time in the lender's time zone, to the second, with its UTC on hover. */
export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return null;
  return (
    <time dateTime={iso} title={whenUtc(iso)}>
      {when(iso)}
    </time>
  );
}

/** Copies `value` to the clipboard and says so; `label` names what is copied, for a screen reader. */
export function CopyButton({ value, label }: { value: string; label: string }) {
  const [said, setSaid] = useState<string | null>(null);
  function copy() {
    const done = () => setSaid('Copied');
    const failed = () => setSaid('Could not copy: select the text and copy it');
    if (navigator.clipboard?.writeText) navigator.clipboard.writeText(value).then(done, failed);
    else failed();
  }
  return (
    <span class="copy">
      <button type="button" class="small" aria-label={label} onClick={copy}>
        Copy
      </button>
      <span class="inline-ok" role="status">
        {said ?? ''}
      </span>
    </span>
  );
}

/** An id shown short (its first 8 characters), the whole id on hover, in its accessible name and on the clipboard. */
export function ShortId({ id, href, what }: { id: string; href?: string; what: string }) {
  const short = id.slice(0, 8);
  return (
    <span class="short-id">
      {href ? (
        <a href={href} class="id" title={id} aria-label={id}>
          {short}
        </a>
      ) : (
        <span class="id" title={id} aria-label={id}>
          {short}
        </span>
      )}{' '}
      <CopyButton value={id} label={`Copy the ${what} id ${id}`} />
      <span class="print-only id" aria-hidden="true">
        {id}
      </span>
    </span>
  );
}

/** A secret shown once: selectable, labelled, with a copy button and the warning that it will not be shown again. */
export function ShownOnce({ label, value, children }: { label: string; value: string; children?: ComponentChildren }) {
  return (
    <div class="shown-once" role="status">
      <p>
        <strong>{label}</strong> (shown once: copy it now, it cannot be shown again)
      </p>
      <code class="secret" data-testid="shown-once">
        {value}
      </code>{' '}
      <CopyButton value={value} label={`Copy the ${label.toLowerCase()}`} />
      {children}
    </div>
  );
}

/** A button that asks for a second, explicit click before it acts. */
export function ConfirmButton(props: {
  label: string;
  confirmLabel: string;
  warning: string;
  onConfirm: () => void;
  disabled?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" onClick={() => setAsking(true)} disabled={props.disabled}>
        {props.label}
      </button>
    );
  }
  return (
    <div class="confirm" role="group" aria-label={props.label}>
      <p>{props.warning}</p>
      <button
        type="button"
        class="danger"
        onClick={() => {
          setAsking(false);
          props.onConfirm();
        }}
      >
        {props.confirmLabel}
      </button>{' '}
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </div>
  );
}

/** A labelled filter: "Any" (no filter) or one of the options (shown as `words` of it, when given). */
export function FilterSelect(props: {
  id: string;
  label: string;
  name: string;
  value: string;
  options: readonly string[];
  words?: (option: string) => string;
}) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <select id={props.id} name={props.name} value={props.value}>
        <option value="">Any</option>
        {props.options.map((option) => (
          <option key={option} value={option}>
            {props.words ? props.words(option) : option}
          </option>
        ))}
      </select>
    </div>
  );
}

/**
 * Says, for a role that may not, why the page offers no control for something: the change
 * controls it covers are left out or disabled, and the gateway would refuse them anyway.
 */
export function RoleNote({ permission, what }: { permission: Permission; what: string }) {
  const session = useSession();
  if (may(session, permission)) return null;
  return (
    <p class="notice role-note" role="note">
      {notAllowed(session, permission, what)}
    </p>
  );
}
