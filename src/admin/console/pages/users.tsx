import { useEffect, useRef, useState } from 'preact/hooks';
import {
  credentialsApi,
  usersApi,
  type ApiUser,
  type Approval,
  type UserSetupLink,
  type Credential,
  type IssuedCredential,
  type RotatedCredential,
  type WhereToUse,
} from '../admin-api.js';
import { href, type Route } from '../router.js';
import { ACTIONS, ConfirmButton, CopyField, ErrorMessage, Field, InlineForm, LoadedView, Notice, Page, TableHead, counted, formatTime, useAction, useLoad } from '../ui.js';

export function UsersPage({ route }: { route: Route }) {
  const email = route.segments[1];
  return email ? <UserPage email={email} /> : <UserList />;
}

function UserList() {
  const users = useLoad(() => usersApi.list(), []);
  const [email, setEmail] = useState('');
  const [notice, setNotice] = useState('');
  const create = useAction(async () => {
    const user = await usersApi.create(email.trim());
    setNotice(`Registered ${user.email}.`);
    setEmail('');
    users.reload();
  });
  return (
    <Page title="API users">
      <InlineForm label="Register an API user" submitLabel="Register user" busy={create.busy} onSubmit={() => void create.act()}>
        <Field label="New API user's email" type="email" name="user-email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
      </InlineForm>
      <ErrorMessage error={create.error} />
      {notice ? <Notice>{notice}</Notice> : null}
      <LoadedView loaded={users}>{(list) => <UserTable users={list} />}</LoadedView>
    </Page>
  );
}

function UserTable({ users }: { users: ApiUser[] }) {
  if (users.length === 0) return <p class="empty">No API users yet.</p>;
  return (
    <table>
      <caption>{counted(users.length, 'API user')}</caption>
      <TableHead columns={['Email', 'Status', 'Registered']} />
      <tbody>
        {users.map((u) => (
          <tr key={u.id}>
            <td>
              <a href={href(`/users/${u.email}`)}>{u.email}</a>
            </td>
            <td>{u.status}</td>
            <td>{formatTime(u.createdAt)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** One API user: whether it may use its credentials, and the credentials themselves. */
function UserPage({ email }: { email: string }) {
  return (
    <Page title={`API user ${email}`}>
      <p class="breadcrumb">
        <a href={href('/users')}>All API users</a> · <a href={href('/webhooks', { user: email })}>Its webhook subscriptions</a>
      </p>
      <UserStatus email={email} />
      <SignInSection email={email} />
      <ApprovalsSection email={email} />
      <CredentialsSection email={email} />
    </Page>
  );
}

function UserStatus({ email }: { email: string }) {
  const user = useLoad(async () => (await usersApi.list()).find((u) => u.email.toLowerCase() === email.toLowerCase()), [email]);
  const [notice, setNotice] = useState('');
  const setStatus = useAction(async (status: 'active' | 'disabled') => {
    await usersApi.setStatus(email, status);
    setNotice(status === 'active' ? `Enabled ${email}.` : `Disabled ${email}: none of its credentials work until it is enabled.`);
    user.reload();
  });
  return (
    <>
      <LoadedView loaded={user}>
        {(u) =>
          u ? (
            <p>
              Status: <strong>{u.status}</strong>{' '}
              {u.status === 'active' ? (
                <ConfirmButton label="Disable user" confirmLabel="Confirm: disable user" onConfirm={() => void setStatus.act('disabled')} />
              ) : (
                <button type="button" onClick={() => void setStatus.act('active')}>
                  Enable user
                </button>
              )}
            </p>
          ) : (
            <ErrorMessage error={`No API user ${email}.`} />
          )
        }
      </LoadedView>
      <ErrorMessage error={setStatus.error} />
      {notice ? <Notice>{notice}</Notice> : null}
    </>
  );
}

/** How the user signs in to approve apps: a one-time link to choose a password (docs/USER-AUTH.md). */
function SignInSection({ email }: { email: string }) {
  const [link, setLink] = useState<UserSetupLink | undefined>(undefined);
  const invite = useAction(async () => setLink(await usersApi.invite(email)));
  return (
    <>
      <h2>Sign-in</h2>
      <p>
        <button type="button" disabled={invite.busy} onClick={() => void invite.act()}>
          Make a sign-in link
        </button>{' '}
        The user opens it to choose a password, then signs in to approve apps. A new link replaces the earlier one.
      </p>
      <ErrorMessage error={invite.error} />
      {link ? (
        <>
          <Notice>One-time link for {link.user.email}, valid until {formatTime(link.expiresAt)}. Send it to the user only.</Notice>
          <CopyField label="Sign-in link" value={link.setupLink} />
        </>
      ) : null}
      <SetPasswordForm email={email} />
    </>
  );
}

/** Sets the user's password directly (as `users set-password` does): for when a link cannot be passed on. */
function SetPasswordForm({ email }: { email: string }) {
  const [password, setPassword] = useState('');
  const [notice, setNotice] = useState('');
  const save = useAction(async () => {
    await usersApi.setPassword(email, password);
    setPassword('');
    setNotice(`Password set for ${email}: the user is signed out of every browser and signs in with the new one.`);
  });
  return (
    <>
      <InlineForm label="Set the user's password" submitLabel="Set password" busy={save.busy} onSubmit={() => void save.act()}>
        <Field
          label="New password"
          type="password"
          name="user-password"
          autocomplete="new-password"
          required
          minLength={12}
          hint="At least 12 characters. Prefer a sign-in link: then nobody but the user knows the password."
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
      </InlineForm>
      <ErrorMessage error={save.error} />
      {notice ? <Notice>{notice}</Notice> : null}
    </>
  );
}

/** The apps the user approved and has not revoked, as the user's own page lists them; Revoke takes one back for the user. */
function ApprovalsSection({ email }: { email: string }) {
  const approvals = useLoad(() => usersApi.approvals(email), [email]);
  const [notice, setNotice] = useState('');
  const revoke = useAction(async (approval: Approval) => {
    await usersApi.revokeApproval(email, approval.clientId);
    setNotice(`Revoked ${approval.name} for ${email}: its tokens no longer work. The user may approve it again.`);
    approvals.reload();
  });
  return (
    <>
      <h2 id="approvals-heading">Apps this user approved</h2>
      <ErrorMessage error={revoke.error} />
      {notice ? <Notice>{notice}</Notice> : null}
      <LoadedView loaded={approvals}>{(list) => <ApprovalTable approvals={list} onRevoke={(a) => void revoke.act(a)} />}</LoadedView>
    </>
  );
}

function ApprovalTable({ approvals, onRevoke }: { approvals: Approval[]; onRevoke: (approval: Approval) => void }) {
  if (approvals.length === 0) return <p class="empty">This user has approved no app.</p>;
  return (
    <table aria-labelledby="approvals-heading">
      <TableHead columns={['App', 'Client id', 'Scopes', 'Approved', 'Last got a token', ACTIONS]} />
      <tbody>
        {approvals.map((a) => (
          <tr key={a.clientId}>
            <td>{a.name}</td>
            <td class="mono">{a.clientId}</td>
            <td>{a.scopes.join(', ')}</td>
            <td>{formatTime(a.approvedAt)}</td>
            <td>{formatTime(a.lastUsedAt)}</td>
            <td class="actions">
              <ConfirmButton label="Revoke" confirmLabel="Confirm: revoke" what={a.name} onConfirm={() => onRevoke(a)} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The user's credentials: issue one, rotate or retire a secret, revoke; a new secret is shown once. */
function CredentialsSection({ email }: { email: string }) {
  const credentials = useLoad(() => credentialsApi.list(email), [email]);
  const [secret, setSecret] = useState<{ issued: IssuedCredential | (RotatedCredential & WhereToUse); note: string } | undefined>(undefined);
  const [notice, setNotice] = useState('');
  const issue = useAction(async () => {
    const issued = await credentialsApi.issue(email);
    setSecret({ issued, note: `New credential ${issued.clientId} for ${issued.email}.` });
    credentials.reload();
  });
  const rotate = useAction(async (clientId: string) => {
    // Handed over with the same facts as a new credential: where to get tokens and read results.
    const [rotated, endpoints] = await Promise.all([credentialsApi.rotate(clientId), credentialsApi.publicEndpoints()]);
    const previous = ` The previous secret keeps working until ${formatTime(rotated.previousSecretExpiresAt)}.`;
    setSecret({ issued: { ...endpoints, ...rotated }, note: `New secret for ${clientId}.${previous}` });
    credentials.reload();
  });
  const retire = useAction(async (clientId: string) => {
    const { retired } = await credentialsApi.retirePrevious(clientId);
    setNotice(`Retired ${retired} previous secret${retired === 1 ? '' : 's'} of ${clientId}: only the newest works now.`);
    credentials.reload();
  });
  const revoke = useAction(async (clientId: string) => {
    await credentialsApi.revoke(clientId);
    setSecret(undefined);
    setNotice(`Revoked ${clientId}: its tokens and secrets no longer work.`);
    credentials.reload();
  });
  const actions = { rotate: (id: string) => void rotate.act(id), retire: (id: string) => void retire.act(id), revoke: (id: string) => void revoke.act(id), busy: rotate.busy };
  return (
    <>
      <h2 id="credentials-heading">Credentials</h2>
      <p>
        <button type="button" class="primary" disabled={issue.busy} onClick={() => void issue.act()}>
          Issue a credential
        </button>
      </p>
      <ErrorMessage error={issue.error ?? rotate.error ?? retire.error ?? revoke.error} />
      {notice ? <Notice>{notice}</Notice> : null}
      {secret ? <SecretPanel issued={secret.issued} note={secret.note} onDone={() => setSecret(undefined)} /> : null}
      <LoadedView loaded={credentials}>{(list) => <CredentialTable credentials={list} actions={actions} />}</LoadedView>
    </>
  );
}

interface CredentialActions {
  rotate(clientId: string): void;
  retire(clientId: string): void;
  revoke(clientId: string): void;
  busy: boolean;
}

function CredentialTable({ credentials, actions }: { credentials: Credential[]; actions: CredentialActions }) {
  if (credentials.length === 0) return <p class="empty">No credentials issued to this user.</p>;
  return (
    <table aria-labelledby="credentials-heading">
      <TableHead columns={['Client id', 'Issued', 'Last used', 'State', ACTIONS]} />
      <tbody>
        {credentials.map((c) => (
          <tr key={c.clientId}>
            <td class="mono">{c.clientId}</td>
            <td>{formatTime(c.createdAt)}</td>
            <td>{formatTime(c.lastUsedAt)}</td>
            <td>{c.status === 'revoked' ? `revoked ${formatTime(c.revokedAt)}` : `active (${c.activeSecrets} secret${c.activeSecrets === 1 ? '' : 's'})`}</td>
            <td class="actions">{c.status === 'revoked' ? null : <CredentialButtons credential={c} actions={actions} />}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function CredentialButtons({ credential: c, actions }: { credential: Credential; actions: CredentialActions }) {
  return (
    <>
      <button type="button" disabled={actions.busy} onClick={() => actions.rotate(c.clientId)}>
        Rotate secret<span class="visually-hidden"> of {c.clientId}</span>
      </button>{' '}
      {c.activeSecrets > 1 ? (
        <>
          <ConfirmButton label="Retire previous secret" confirmLabel="Confirm: retire previous secret" what={`of ${c.clientId}`} onConfirm={() => actions.retire(c.clientId)} />{' '}
        </>
      ) : null}
      <ConfirmButton label="Revoke" confirmLabel="Confirm: revoke" what={c.clientId} onConfirm={() => actions.revoke(c.clientId)} />
    </>
  );
}

/**
 * A new secret, shown this once (the server keeps only its hash), with everything the API user
 * needs beside it. It takes the focus so a screen reader reads it at once.
 */
function SecretPanel({ issued, note, onDone }: { issued: IssuedCredential | (RotatedCredential & WhereToUse); note: string; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [issued.clientSecret]);
  return (
    <section class="secret-panel" aria-labelledby="secret-heading">
      <h2 id="secret-heading" tabIndex={-1} ref={heading}>
        Copy the secret now: it is shown only once
      </h2>
      <p>{note} Send these to the API user through a secure channel.</p>
      <CopyField label="Client id" value={issued.clientId} />
      <CopyField label="Client secret" value={issued.clientSecret} />
      <CopyField label="Token URL" value={issued.tokenUrl} />
      <CopyField label="Authorization server id" value={issued.authorizationServerId} />
      {issued.baseUrl ? <CopyField label="Results API base URL" value={issued.baseUrl} /> : null}
      <button type="button" onClick={onDone}>
        I have copied it: hide the secret
      </button>
    </section>
  );
}
