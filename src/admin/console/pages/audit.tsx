import { useState } from 'preact/hooks';
import { auditApi } from '../admin-api.js';
import { navigate, type Route } from '../router.js';
import { Field, LoadedView, Page, formatTime, useLoad } from '../ui.js';

const FILTERS = ['since', 'action', 'actor', 'subject'] as const;
type Filter = Record<(typeof FILTERS)[number], string>;

/** The audit log, newest first; the filters live in the address, so a filtered view can be shared. */
export function AuditPage({ route }: { route: Route }) {
  const applied: Filter = { since: '', action: '', actor: '', subject: '' };
  for (const name of FILTERS) applied[name] = route.params.get(name) ?? '';
  const [draft, setDraft] = useState<Filter>(applied);
  const events = useLoad(
    () =>
      auditApi.list({
        since: applied.since || undefined,
        action: applied.action || undefined,
        actor: applied.actor || undefined,
        subject: applied.subject || undefined,
      }),
    [route.params.toString()],
  );
  const set = (name: keyof Filter) => (e: { currentTarget: HTMLInputElement }) => setDraft({ ...draft, [name]: e.currentTarget.value });
  return (
    <Page title="Audit log">
      <form
        class="filters"
        aria-label="Filter the audit log"
        onSubmit={(event) => {
          event.preventDefault();
          navigate('/audit', draft);
        }}
      >
        <Field label="Since" name="since" placeholder="24h or 2026-11-23T09:00:00Z" value={draft.since} onInput={set('since')} />
        <Field label="Action" name="action" placeholder="credential or credential.revoke" value={draft.action} onInput={set('action')} />
        <Field label="Actor" name="actor" placeholder="admin:alice@example.com" value={draft.actor} onInput={set('actor')} />
        <Field label="Subject" name="subject" placeholder="a client id, email or id" value={draft.subject} onInput={set('subject')} />
        <button type="submit">Filter</button>
      </form>
      <LoadedView loaded={events}>
        {(list) =>
          list.length === 0 ? (
            <p class="empty">No events match.</p>
          ) : (
            <table>
              <caption>{list.length === 1 ? '1 event, newest first' : `${list.length} events, newest first`}</caption>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Actor</th>
                  <th scope="col">Action</th>
                  <th scope="col">Subject</th>
                  <th scope="col">Details</th>
                </tr>
              </thead>
              <tbody>
                {list.map((e) => (
                  <tr key={e.id}>
                    <td>{formatTime(e.at)}</td>
                    <td>{e.actor}</td>
                    <td class="mono">{e.action}</td>
                    <td class="mono">{e.subject}</td>
                    <td class="mono">{Object.keys(e.details).length > 0 ? JSON.stringify(e.details) : ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </LoadedView>
    </Page>
  );
}
