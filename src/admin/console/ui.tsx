import type { ComponentChildren, InputHTMLAttributes, PartialInputHTMLAttributes, PartialSelectHTMLAttributes } from 'preact';
import { useCallback, useEffect, useId, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.js';

/**
 * A page: its heading takes the focus when the page opens, so a keyboard or screen-reader
 * user hears where they landed after following a link (the hash route changes no document).
 */
export function Page(props: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${props.title} · results-api admin`;
    heading.current?.focus();
  }, [props.title]);
  return (
    <section aria-labelledby="page-title" class="page">
      <div class="page-head">
        <h1 id="page-title" tabIndex={-1} ref={heading}>
          {props.title}
        </h1>
        {props.actions ? <div class="page-actions">{props.actions}</div> : null}
      </div>
      {props.children}
    </section>
  );
}

type InputProps = Omit<PartialInputHTMLAttributes<HTMLInputElement>, 'id' | 'role'> & { label: string; hint?: string };

/** A labelled input; its hint is announced with it (aria-describedby). */
export function Field({ label, hint, ...input }: InputProps) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {/* preact types inputs as a union keyed by `type`; any attribute set a caller passes is one of them */}
      <input id={id} {...(input as InputHTMLAttributes<HTMLInputElement>)} aria-describedby={hint ? `${id}-hint` : undefined} />
      {hint ? (
        <p id={`${id}-hint`} class="hint">
          {hint}
        </p>
      ) : null}
    </div>
  );
}

type SelectProps = Omit<PartialSelectHTMLAttributes<HTMLSelectElement>, 'id' | 'role'> & { label: string; options: readonly (readonly [string, string])[] };

export function SelectField({ label, options, ...select }: SelectProps) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} {...select}>
        {options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}

/**
 * A form on one line: its fields, then the one button that submits it. `label` names the form
 * for assistive technology (or `labelledBy`, the id of a heading that does); `onSubmit` runs
 * the action, the button is disabled while it is `busy`.
 */
export function InlineForm(props: { label?: string; labelledBy?: string; submitLabel: string; busy: boolean; onSubmit: () => void; children: ComponentChildren }) {
  return (
    <form
      class="inline"
      aria-label={props.label}
      aria-labelledby={props.labelledBy}
      onSubmit={(event) => {
        event.preventDefault();
        props.onSubmit();
      }}
    >
      {props.children}
      <button type="submit" disabled={props.busy}>
        {props.submitLabel}
      </button>
    </form>
  );
}

/** A refusal or failure, announced as it appears. */
export function ErrorMessage({ error }: { error: unknown }) {
  if (!error) return null;
  const text = error instanceof Error ? error.message : String(error);
  return (
    <p role="alert" class="error">
      {text}
    </p>
  );
}

/** A success or progress note, announced politely. */
export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <p role="status" class="notice">
      {children}
    </p>
  );
}

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload(): void;
}

/** Loads `load()` whenever `deps` change; a newer load wins over a slower older one. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({ data: undefined, error: undefined, loading: true });
  const [generation, setGeneration] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    const ticket = ++latest.current;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => ticket === latest.current && setState({ data, error: undefined, loading: false }),
      (error: unknown) => ticket === latest.current && setState({ data: undefined, error, loading: false }),
    );
  }, [...deps, generation]);
  const reload = useCallback(() => setGeneration((n) => n + 1), []);
  return { ...state, reload };
}

/**
 * What a loaded region shows while loading or after failing; `children` once loaded. While a
 * newer load is on its way the region keeps what it showed, marked busy for assistive technology.
 */
export function LoadedView<T>({ loaded, children }: { loaded: Loaded<T>; children: (data: T) => ComponentChildren }) {
  if (loaded.error) return <ErrorMessage error={loaded.error} />;
  if (loaded.data === undefined) return <p class="loading">Loading…</p>;
  return <div aria-busy={loaded.loading ? 'true' : 'false'}>{children(loaded.data)}</div>;
}

/**
 * Runs a state change from a form: disables the button while it runs, keeps the refusal to
 * show. `run` returns what the page shows next (or nothing).
 */
export function useAction<A extends unknown[], R>(run: (...args: A) => Promise<R>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const act = async (...args: A): Promise<R | undefined> => {
    setBusy(true);
    setError(undefined);
    try {
      return await run(...args);
    } catch (err) {
      setError(err instanceof ApiError || err instanceof Error ? err : new Error(String(err)));
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { act, busy, error, setError };
}

/** The header cell of a column of row actions: it has no visible title, but a name for assistive technology. */
export const ACTIONS = Symbol('actions');

/** A table's header row, one column header per name. */
export function TableHead({ columns }: { columns: readonly (string | typeof ACTIONS)[] }) {
  return (
    <thead>
      <tr>
        {columns.map((column, i) => (
          <th key={i} scope="col">
            {column === ACTIONS ? <span class="visually-hidden">Actions</span> : column}
          </th>
        ))}
      </tr>
    </thead>
  );
}

/** Previous/next for a paged list. */
export function Pager(props: { page: number; hasNext: boolean; onPage: (page: number) => void; label: string }) {
  return (
    <nav class="pager" aria-label={`${props.label} pages`}>
      <button type="button" disabled={props.page <= 1} onClick={() => props.onPage(props.page - 1)}>
        Previous page
      </button>
      <span>Page {props.page}</span>
      <button type="button" disabled={!props.hasNext} onClick={() => props.onPage(props.page + 1)}>
        Next page
      </button>
    </nav>
  );
}

/** A value to copy (a new secret, a URL): a read-only field and a copy button with feedback. */
export function CopyField({ label, value }: { label: string; value: string }) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<'yes' | 'no' | undefined>(undefined);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('yes');
    } catch {
      // Without clipboard permission: select it, so Ctrl+C copies it.
      input.current?.select();
      setCopied('no');
    }
  };
  return (
    <div class="field copy-field">
      <label for={id}>{label}</label>
      <div class="copy-row">
        <input id={id} ref={input} readOnly value={value} class="mono" onFocus={(e) => e.currentTarget.select()} />
        <button type="button" onClick={() => void copy()}>
          Copy<span class="visually-hidden"> {label}</span>
        </button>
      </div>
      <span role="status" class="hint">
        {copied === 'yes' ? `${label} copied.` : copied === 'no' ? 'Selected: press Ctrl+C (⌘C) to copy.' : ''}
      </span>
    </div>
  );
}

/**
 * A destructive action asks once more, in place (no modal to trap the focus). `what` names the
 * object for screen readers (a row's "Revoke" button says which credential).
 */
export function ConfirmButton(props: { label: string; confirmLabel: string; what?: string; onConfirm: () => void; disabled?: boolean }) {
  const what = props.what ? <span class="visually-hidden"> {props.what}</span> : null;
  const [asking, setAsking] = useState(false);
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) confirm.current?.focus();
  }, [asking]);
  if (!asking) {
    return (
      <button type="button" class="danger" disabled={props.disabled} onClick={() => setAsking(true)}>
        {props.label}
        {what}
      </button>
    );
  }
  return (
    <span class="confirm">
      <button
        type="button"
        class="danger"
        ref={confirm}
        onClick={() => {
          setAsking(false);
          props.onConfirm();
        }}
      >
        {props.confirmLabel}
        {what}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

/** A clip's or reel's status: GENERATING, GENERATED, or ERROR with why, and a button to try again. */
export function JobStatus(props: { status: string; lastError: string | null; what: string; busy: boolean; onRetry: () => void }) {
  return (
    <>
      {props.status}
      {props.lastError ? <span class="hint"> ({props.lastError})</span> : null}
      {props.status === 'ERROR' ? (
        <>
          {' '}
          <button type="button" disabled={props.busy} onClick={props.onRetry}>
            Retry<span class="visually-hidden"> {props.what}</span>
          </button>
        </>
      ) : null}
    </>
  );
}

/** "1 test", "3 tests": how many, with the noun agreeing. */
export const counted = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

export const formatTime = (iso: string | null | undefined): string => (iso ? new Date(iso).toLocaleString() : '—');

/** 83_500 ms → "1:23.5": how a player shows a position. */
export function formatMs(ms: number): string {
  const tenths = Math.round(ms / 100);
  const minutes = Math.floor(tenths / 600);
  const seconds = (tenths % 600) / 10;
  return `${minutes}:${seconds.toFixed(1).padStart(4, '0')}`;
}
