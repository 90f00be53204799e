import { useState } from 'preact/hooks';
import { auditApi } from '../admin-api.js';
import { navigate, type Route } from '../router.js';
import { Field, LoadedView, Page, TableHead, counted, formatTime, useLoad } from '../ui.js';

const AGO = /^(\d{1,6})([mhd])$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `since` as the API takes it (an ISO time); a time ago (`24h`), as the CLI accepts, is converted here. */
function sinceTime(text: string): string | undefined {
  const given = text.trim();
  if (!given) return undefined;
  const ago = AGO.exec(given);
  if (!ago) return given;
  return new Date(Date.now() - Number(ago[1]) * UNIT_MS[ago[2] as keyof typeof UNIT_MS]).toISOString();
}

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
        since: sinceTime(applied.since),
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
        <Field label="Since" name="since" hint="A time ago (30m, 24h, 7d) or an ISO 8601 time." value={draft.since} onInput={set('since')} />
        <Field label="Action" name="action" hint="An action (credential.revoke) or all of a noun (credential)." value={draft.action} onInput={set('action')} />
        <Field label="Actor" name="actor" hint="admin:ana@example.com, cli:alice…" value={draft.actor} onInput={set('actor')} />
        <Field label="Subject" name="subject" hint="A client id, an email, an id." value={draft.subject} onInput={set('subject')} />
        <button type="submit">Filter</button>
      </form>
      <LoadedView loaded={events}>
        {(oldestFirst) => {
          const list = [...oldestFirst].reverse();
          return list.length === 0 ? (
            <p class="empty">No events match.</p>
          ) : (
            <table>
              <caption>{`${counted(list.length, 'event')}, newest first`}</caption>
              <TableHead columns={['When', 'Actor', 'Action', 'Subject', 'Details']} />
              <tbody>
                {list.map((e) => (
                  <tr key={e.id}>
                    <td>{formatTime(e.at)}</td>
                    <td>{e.actor}</td>
                    <td class="mono">{e.action}</td>
                    <td class="mono">{e.subject}</td>
                    <td>
                      <AuditDetails details={e.details} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          );
        }}
      </LoadedView>
    </Page>
  );
}

/** An event's details as name and value pairs, long values wrapped (never a page that scrolls sideways). */
function AuditDetails({ details }: { details: Record<string, unknown> }) {
  const entries = Object.entries(details);
  if (entries.length === 0) return null;
  return (
    <dl class="audit-details">
      {entries.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd class="mono">{typeof value === 'string' ? value : JSON.stringify(value)}</dd>
        </div>
      ))}
    </dl>
  );
}
