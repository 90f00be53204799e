import { useState } from 'preact/hooks';
import { webhooksApi, type WebhookDelivery, type WebhookSubscription } from '../admin-api.js';
import { href, navigate, type Route } from '../router.js';
import { ConfirmButton, ErrorMessage, Field, InlineForm, LoadedView, Notice, Page, TableHead, counted, formatTime, useAction, useLoad } from '../ui.js';

/** API users' webhook subscriptions (docs/WEBHOOKS.md): the list, or one with its delivery log (`?before=` pages it). */
export function WebhooksPage({ route }: { route: Route }) {
  const id = route.segments[1];
  if (id) return <WebhookPage id={id} before={route.params.get('before') ?? undefined} />;
  return <WebhookList user={route.params.get('user') ?? ''} notice={route.params.get('deleted') ?? undefined} />;
}

/** "enabled", or "disabled" with why; a failing one says since when (it is disabled after three days). */
function statusText(w: WebhookSubscription): string {
  if (w.status === 'disabled') return `disabled ${formatTime(w.disabledAt)}: ${w.disabledReason ?? 'no reason recorded'}`;
  return w.failingSince ? `enabled, failing since ${formatTime(w.failingSince)}` : 'enabled';
}

/** Every subscription, or one owner's (`?user=` in the address, so the filter can be bookmarked). */
function WebhookList({ user, notice }: { user: string; notice: string | undefined }) {
  const webhooks = useLoad(() => webhooksApi.list(user || undefined), [user]);
  const [draft, setDraft] = useState(user);
  return (
    <Page title="Webhooks">
      <InlineForm label="Filter by owner" submitLabel="Show" busy={false} onSubmit={() => navigate('/webhooks', { user: draft.trim() })}>
        <Field label="Owner's email (empty: everyone)" type="email" name="webhook-owner" value={draft} onInput={(e) => setDraft(e.currentTarget.value)} />
      </InlineForm>
      {notice ? <Notice>Deleted the subscription to {notice} and its delivery log.</Notice> : null}
      <LoadedView loaded={webhooks}>{(list) => <WebhookTable webhooks={list} empty={user ? `${user} has no webhook subscriptions.` : 'No webhook subscriptions yet.'} />}</LoadedView>
    </Page>
  );
}

function WebhookTable({ webhooks, empty }: { webhooks: WebhookSubscription[]; empty: string }) {
  if (webhooks.length === 0) return <p class="empty">{empty}</p>;
  return (
    <table>
      <caption>{counted(webhooks.length, 'subscription')}</caption>
      <TableHead columns={['Target', 'Owner', 'Events', 'Status', 'Created']} />
      <tbody>
        {webhooks.map((w) => (
          <tr key={w.id}>
            <td class="wrap">
              <a href={href(`/webhooks/${w.id}`)}>{w.url}</a>
            </td>
            <td>{w.ownerEmail ?? '—'}</td>
            <td>{w.events.join(' ')}</td>
            <td>{statusText(w)}</td>
            <td>{formatTime(w.createdAt)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** One subscription: what it sends where, Disable/Enable/Delete, and its delivery log. */
function WebhookPage({ id, before }: { id: string; before: string | undefined }) {
  const webhook = useLoad(() => webhooksApi.show(id), [id]);
  const [notice, setNotice] = useState('');
  const toggle = useAction(async (disabled: boolean) => {
    await webhooksApi.setDisabled(id, disabled);
    setNotice(disabled ? 'Disabled: nothing more is sent to it.' : 'Enabled: deliveries resume, past failures forgotten.');
    webhook.reload();
  });
  const remove = useAction(async (url: string) => {
    await webhooksApi.delete(id);
    navigate('/webhooks', { deleted: url });
  });
  return (
    <Page title="Webhook subscription">
      <p class="breadcrumb">
        <a href={href('/webhooks')}>All webhooks</a>
      </p>
      <ErrorMessage error={toggle.error ?? remove.error} />
      {notice ? <Notice>{notice}</Notice> : null}
      <LoadedView loaded={webhook}>
        {(w) => (
          <>
            <WebhookDetails webhook={w} />
            <p>
              <button type="button" disabled={toggle.busy} onClick={() => void toggle.act(w.status === 'enabled')}>
                {w.status === 'enabled' ? 'Disable' : 'Enable'}
              </button>{' '}
              <ConfirmButton label="Delete" confirmLabel="Confirm: delete" what={`the subscription to ${w.url}`} disabled={remove.busy} onConfirm={() => void remove.act(w.url)} />
            </p>
          </>
        )}
      </LoadedView>
      <DeliveryLog id={id} before={before} />
    </Page>
  );
}

function WebhookDetails({ webhook: w }: { webhook: WebhookSubscription }) {
  return (
    <dl class="details">
      <dt>Target</dt>
      <dd class="mono wrap">{w.url}</dd>
      <dt>Owner</dt>
      <dd>{w.ownerEmail ? <a href={href(`/users/${w.ownerEmail}`)}>{w.ownerEmail}</a> : '—'}</dd>
      <dt>Credential</dt>
      <dd class="mono">{w.clientId}</dd>
      <dt>Events</dt>
      <dd>{w.events.join(' ')}</dd>
      <dt>Only</dt>
      <dd>{[w.testId ? `test ${w.testId}` : '', w.workspaceId ? `workspace ${w.workspaceId}` : ''].filter(Boolean).join(', ') || 'whatever its owner may see'}</dd>
      <dt>Status</dt>
      <dd>{statusText(w)}</dd>
      {w.description ? (
        <>
          <dt>Description</dt>
          <dd>{w.description}</dd>
        </>
      ) : null}
      <dt>Id</dt>
      <dd class="mono">{w.id}</dd>
      <dt>Created</dt>
      <dd>{formatTime(w.createdAt)}</dd>
    </dl>
  );
}

/** The delivery log, newest first, a page at a time (the cursor is the last event id shown). */
function DeliveryLog({ id, before }: { id: string; before: string | undefined }) {
  const page = useLoad(() => webhooksApi.deliveries(id, before), [id, before]);
  return (
    <>
      <h2 id="deliveries-heading">Deliveries</h2>
      <LoadedView loaded={page}>
        {({ deliveries, next }) => (
          <>
            {deliveries.length === 0 ? <p class="empty">Nothing delivered yet.</p> : <DeliveryTable deliveries={deliveries} />}
            {before || next ? (
              <nav class="pager" aria-label="Delivery pages">
                {before ? <a href={href(`/webhooks/${id}`)}>Newest deliveries</a> : null}
                {next ? <a href={href(`/webhooks/${id}`, { before: next })}>Older deliveries</a> : null}
              </nav>
            ) : null}
          </>
        )}
      </LoadedView>
    </>
  );
}

function DeliveryTable({ deliveries }: { deliveries: WebhookDelivery[] }) {
  return (
    <table aria-labelledby="deliveries-heading">
      <TableHead columns={['Event', 'Type', 'Status', 'Attempts', 'Response', 'Duration', 'Last error', 'Queued']} />
      <tbody>
        {deliveries.map((d) => (
          <tr key={d.eventId}>
            <td class="mono">{d.eventId}</td>
            <td>{d.type}</td>
            <td>{d.status === 'pending' && d.nextAttemptAt ? `pending, next ${formatTime(d.nextAttemptAt)}` : d.status}</td>
            <td>{d.attempts}</td>
            <td>{d.responseCode ?? '—'}</td>
            <td>{d.durationMs === null ? '—' : `${d.durationMs} ms`}</td>
            <td class="wrap">{d.error ?? '—'}</td>
            <td>{formatTime(d.createdAt)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
