import { useState } from 'preact/hooks';
import { appsApi, type PartnerApp } from '../admin-api.js';
import { ACTIONS, ConfirmButton, CopyField, ErrorMessage, Field, LoadedView, Notice, Page, SelectField, TableHead, counted, formatTime, useAction, useLoad } from '../ui.js';

const SCOPES = ['studies:read', 'public_api.read', 'sessions:read', 'videos:read', 'clips:read'];

/** Partner apps: register one (a confidential app's secret shown once), list them, revoke one (docs/USER-AUTH.md). */
export function AppsPage() {
  const apps = useLoad(() => appsApi.list(), []);
  const [name, setName] = useState('');
  const [redirectUris, setRedirectUris] = useState('');
  const [scopes, setScopes] = useState('sessions:read');
  const [clientType, setClientType] = useState<PartnerApp['clientType']>('confidential');
  const [registered, setRegistered] = useState<{ app: PartnerApp; clientSecret: string | null } | undefined>(undefined);
  const [notice, setNotice] = useState('');
  const register = useAction(async () => {
    const split = (text: string) => text.split(/[\s,]+/).filter((s) => s !== '');
    setRegistered(await appsApi.register({ name: name.trim(), redirectUris: split(redirectUris), scopes: split(scopes), clientType }));
    setName('');
    apps.reload();
  });
  const revoke = useAction(async (clientId: string) => {
    const app = await appsApi.revoke(clientId);
    setNotice(`Revoked ${app.name}: every token users granted it stops working, and nobody can approve it again.`);
    apps.reload();
  });
  return (
    <Page title="Apps">
      <form
        aria-labelledby="register-app-heading"
        onSubmit={(e) => {
          e.preventDefault();
          void register.act();
        }}
      >
        <h2 id="register-app-heading">Register a partner app</h2>
        <Field label="App name" name="app-name" required value={name} onInput={(e) => setName(e.currentTarget.value)} hint="Users see it on the consent page." />
        <Field label="Redirect URIs" name="app-redirect-uris" required value={redirectUris} onInput={(e) => setRedirectUris(e.currentTarget.value)} hint="Space-separated: https, loopback http (any port) or a private-use scheme." />
        <Field label="Scopes" name="app-scopes" required value={scopes} onInput={(e) => setScopes(e.currentTarget.value)} hint={`Space-separated, among ${SCOPES.join(', ')}.`} />
        <SelectField label="Kind" name="app-kind" value={clientType} onChange={(e) => setClientType(e.currentTarget.value as PartnerApp['clientType'])} options={[['confidential', 'Confidential (a server, with a secret)'], ['public', 'Public (native or browser app, PKCE alone)']]} />
        <button type="submit" class="primary" disabled={register.busy}>
          Register app
        </button>
      </form>
      <ErrorMessage error={register.error ?? revoke.error} />
      {notice ? <Notice>{notice}</Notice> : null}
      {registered ? (
        <section aria-labelledby="app-registered-heading">
          <h2 id="app-registered-heading">Registered {registered.app.name}{registered.clientSecret ? ': copy the secret now, it is shown only once' : ''}</h2>
          <CopyField label="App client id" value={registered.app.clientId} />
          {registered.clientSecret ? <CopyField label="App client secret" value={registered.clientSecret} /> : null}
        </section>
      ) : null}
      <LoadedView loaded={apps}>{(list) => <AppTable apps={list} revoke={(id) => void revoke.act(id)} />}</LoadedView>
    </Page>
  );
}

function AppTable({ apps, revoke }: { apps: PartnerApp[]; revoke: (clientId: string) => void }) {
  if (apps.length === 0) return <p class="empty">No apps yet.</p>;
  return (
    <table>
      <caption>{counted(apps.length, 'app')}</caption>
      <TableHead columns={['App', 'Client id', 'Kind', 'Scopes', 'Registered', 'State', ACTIONS]} />
      <tbody>
        {apps.map((a) => (
          <tr key={a.clientId}>
            <td>{a.name}</td>
            <td class="mono">{a.clientId}</td>
            <td>
              {a.clientType}, {a.origin}
            </td>
            <td>{a.scopes.join(' ')}</td>
            <td>{formatTime(a.createdAt)}</td>
            <td>{a.status === 'revoked' ? `revoked ${formatTime(a.revokedAt)}` : 'active'}</td>
            <td class="actions">{a.status === 'revoked' ? null : <ConfirmButton label="Revoke" confirmLabel="Confirm: revoke" what={a.name} onConfirm={() => revoke(a.clientId)} />}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
