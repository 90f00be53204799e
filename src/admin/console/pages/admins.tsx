import { useState } from 'preact/hooks';
import { adminsApi, workspacesApi, type AdminSetupLink, type ListedAdmin } from '../admin-api.js';
import type { AdminRole } from '../session.js';
import { roleName } from '../roles.js';
import { ACTIONS, ConfirmButton, CopyField, ErrorMessage, Field, InlineForm, LoadedView, Notice, Page, SelectField, TableHead, counted, formatTime, useAction, useLoad } from '../ui.js';

const ROLES: readonly AdminRole[] = ['support', 'account-admin', 'operator'];

/** Admin accounts (operators): create one and hand over its setup link; assign account admins to workspaces. */
export function AdminsPage() {
  const admins = useLoad(() => adminsApi.list(), []);
  const workspaces = useLoad(() => workspacesApi.list(), []);
  const names = new Map((workspaces.data ?? []).map((w) => [w.id, w.name]));
  const [link, setLink] = useState<AdminSetupLink | undefined>(undefined);
  const [notice, setNotice] = useState('');
  const renew = useAction(async (admin: ListedAdmin) => {
    setLink(await adminsApi.newSetupLink(admin.id));
    admins.reload();
  });
  const assignment = useAction(async (admin: ListedAdmin, workspaceId: string, assign: boolean) => {
    await (assign ? adminsApi.assign(admin.id, workspaceId) : adminsApi.unassign(admin.id, workspaceId));
    setNotice(`${assign ? 'Assigned' : 'Unassigned'} ${admin.email} ${assign ? 'to' : 'from'} ${names.get(workspaceId) ?? workspaceId}.`);
    admins.reload();
  });
  const created = (newLink: AdminSetupLink) => {
    setLink(newLink);
    admins.reload();
  };
  return (
    <Page title="Admins">
      <CreateAdminForm onCreated={created} />
      <ErrorMessage error={renew.error ?? assignment.error} />
      {notice ? <Notice>{notice}</Notice> : null}
      {link ? <SetupLinkPanel link={link} onDone={() => setLink(undefined)} /> : null}
      <LoadedView loaded={admins}>
        {(list) => (
          <AdminTable
            admins={list}
            names={names}
            onRenew={(admin) => void renew.act(admin)}
            onAssignment={(admin, workspaceId, assign) => void assignment.act(admin, workspaceId, assign)}
          />
        )}
      </LoadedView>
    </Page>
  );
}

function CreateAdminForm({ onCreated }: { onCreated: (link: AdminSetupLink) => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<AdminRole>('support');
  const create = useAction(async () => {
    onCreated(await adminsApi.create(email.trim(), role));
    setEmail('');
  });
  return (
    <>
      <InlineForm label="Create an admin account" submitLabel="Create admin" busy={create.busy} onSubmit={() => void create.act()}>
        <Field label="New admin's email" type="email" name="admin-email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        <SelectField label="Role" value={role} options={ROLES.map((r) => [r, roleName(r)] as const)} onChange={(e) => setRole(e.currentTarget.value as AdminRole)} />
      </InlineForm>
      <ErrorMessage error={create.error} />
    </>
  );
}

function SetupLinkPanel({ link, onDone }: { link: AdminSetupLink; onDone: () => void }) {
  return (
    <section class="secret-panel" aria-labelledby="setup-link-heading">
      <h2 id="setup-link-heading">Setup link for {link.email}</h2>
      <p>Send it to {link.email} through a secure channel: it works once, until {formatTime(link.setupLinkExpiresAt)}, and is shown only now.</p>
      <CopyField label="Setup link" value={link.setupLink} />
      <button type="button" onClick={onDone}>
        Hide the link
      </button>
    </section>
  );
}

interface AdminTableProps {
  admins: ListedAdmin[];
  names: Map<string, string>;
  onRenew: (admin: ListedAdmin) => void;
  onAssignment: (admin: ListedAdmin, workspaceId: string, assign: boolean) => void;
}

function AdminTable({ admins, names, onRenew, onAssignment }: AdminTableProps) {
  return (
    <table>
      <caption>{counted(admins.length, 'admin account')}</caption>
      <TableHead columns={['Email', 'Role', 'Account', 'Workspaces administered', ACTIONS]} />
      <tbody>
        {admins.map((admin) => (
          <tr key={admin.id}>
            <td>{admin.email}</td>
            <td>{roleName(admin.role)}</td>
            <td>{admin.passwordSet ? (admin.totpEnabled ? 'set up, with TOTP' : 'set up') : 'waiting for setup'}</td>
            <td>
              {admin.role === 'account-admin' ? (
                <Assignments admin={admin} names={names} onChange={(workspaceId, assign) => onAssignment(admin, workspaceId, assign)} />
              ) : admin.role === 'operator' ? (
                'all (operator)'
              ) : (
                'none (API users and credentials only)'
              )}
            </td>
            <td class="actions">
              <ConfirmButton label="New setup link" confirmLabel="Confirm: new setup link" what={`for ${admin.email}`} onConfirm={() => onRenew(admin)} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Assignments(props: { admin: ListedAdmin; names: Map<string, string>; onChange: (workspaceId: string, assign: boolean) => void }) {
  const unassigned = [...props.names].filter(([id]) => !props.admin.workspaces.includes(id));
  const [choice, setChoice] = useState('');
  const picked = choice || unassigned[0]?.[0] || '';
  return (
    <>
      <ul class="plain">
        {props.admin.workspaces.map((id) => (
          <li key={id}>
            {props.names.get(id) ?? id}{' '}
            <button type="button" onClick={() => props.onChange(id, false)}>
              Unassign<span class="visually-hidden"> {props.names.get(id) ?? id}</span>
            </button>
          </li>
        ))}
      </ul>
      {unassigned.length > 0 ? (
        <span class="confirm">
          <SelectField
            label={`Workspace for ${props.admin.email}`}
            value={picked}
            options={unassigned.map(([id, name]) => [id, name] as const)}
            onChange={(e) => setChoice(e.currentTarget.value)}
          />
          <button type="button" class="align-end" onClick={() => props.onChange(picked, true)}>
            Assign
          </button>
        </span>
      ) : null}
    </>
  );
}
