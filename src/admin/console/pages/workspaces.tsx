import { useState } from 'preact/hooks';
import { PRODUCT_TYPES, testsApi, workspacesApi, type ProductType, type Workspace } from '../admin-api.js';
import { href, type Route } from '../router.js';
import { useSignedIn } from '../session.js';
import { ACTIONS, ConfirmButton, ErrorMessage, Field, InlineForm, LoadedView, Notice, Page, SelectField, TableHead, counted, formatTime, useAction, useLoad } from '../ui.js';

export function WorkspacesPage({ route }: { route: Route }) {
  const id = route.segments[1];
  return id ? <WorkspacePage id={id} /> : <WorkspaceList />;
}

function WorkspaceList() {
  const { role } = useSignedIn();
  const workspaces = useLoad(() => workspacesApi.list(), []);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<Workspace | undefined>(undefined);
  const create = useAction(async () => {
    const workspace = await workspacesApi.create(name.trim());
    setCreated(workspace);
    setName('');
    workspaces.reload();
  });
  return (
    <Page title="Workspaces">
      {role === 'operator' ? (
        <InlineForm label="Create a workspace" submitLabel="Create workspace" busy={create.busy} onSubmit={() => void create.act()}>
          <Field label="New workspace name" name="workspace-name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </InlineForm>
      ) : null}
      <ErrorMessage error={create.error} />
      {created ? (
        <Notice>
          Created workspace <a href={href(`/workspaces/${created.id}`)}>{created.name}</a>.
        </Notice>
      ) : null}
      <LoadedView loaded={workspaces}>{(list) => <WorkspaceTable workspaces={list} />}</LoadedView>
    </Page>
  );
}

function WorkspaceTable({ workspaces }: { workspaces: Workspace[] }) {
  if (workspaces.length === 0) return <p class="empty">No workspaces yet.</p>;
  return (
    <table>
      <caption>{counted(workspaces.length, 'workspace')}</caption>
      <TableHead columns={['Name', 'Id', 'Created']} />
      <tbody>
        {workspaces.map((w) => (
          <tr key={w.id}>
            <td>
              <a href={href(`/workspaces/${w.id}`)}>{w.name}</a>
            </td>
            <td class="mono">{w.id}</td>
            <td>{formatTime(w.createdAt)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** One workspace: its members and its tests. */
function WorkspacePage({ id }: { id: string }) {
  const workspace = useLoad(async () => (await workspacesApi.list()).find((w) => w.id === id), [id]);
  return (
    <Page title={workspace.data ? `Workspace ${workspace.data.name}` : 'Workspace'}>
      <p class="breadcrumb">
        <a href={href('/workspaces')}>All workspaces</a> · <span class="mono">{id}</span>
      </p>
      <MembersSection workspaceId={id} />
      <TestsSection workspaceId={id} />
    </Page>
  );
}

function MembersSection({ workspaceId }: { workspaceId: string }) {
  const members = useLoad(() => workspacesApi.members(workspaceId), [workspaceId]);
  const [email, setEmail] = useState('');
  const [notice, setNotice] = useState('');
  const add = useAction(async () => {
    const member = await workspacesApi.addMember(workspaceId, email.trim());
    setNotice(`Added ${member.email}.`);
    setEmail('');
    members.reload();
  });
  const remove = useAction(async (memberEmail: string) => {
    await workspacesApi.removeMember(workspaceId, memberEmail);
    setNotice(`Removed ${memberEmail}.`);
    members.reload();
  });
  return (
    <>
      <h2 id="members-heading">Members</h2>
      <p class="hint">Members are API users (by email) whose tokens may read this workspace's tests.</p>
      <InlineForm labelledBy="members-heading" submitLabel="Add member" busy={add.busy} onSubmit={() => void add.act()}>
        <Field label="Member email" type="email" name="member-email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
      </InlineForm>
      <ErrorMessage error={add.error ?? remove.error} />
      {notice ? <Notice>{notice}</Notice> : null}
      <LoadedView loaded={members}>
        {(list) =>
          list.length === 0 ? (
            <p class="empty">No members yet.</p>
          ) : (
            <table aria-labelledby="members-heading">
              <TableHead columns={['Email', 'Added', ACTIONS]} />
              <tbody>
                {list.map((m) => (
                  <tr key={m.email}>
                    <td>{m.email}</td>
                    <td>{formatTime(m.addedAt)}</td>
                    <td class="actions">
                      <ConfirmButton label="Remove" confirmLabel="Confirm: remove" what={m.email} onConfirm={() => void remove.act(m.email)} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </LoadedView>
    </>
  );
}

function TestsSection({ workspaceId }: { workspaceId: string }) {
  const tests = useLoad(() => testsApi.list(workspaceId), [workspaceId]);
  const [title, setTitle] = useState('');
  const [productType, setProductType] = useState<ProductType>('SURVEY');
  const [notice, setNotice] = useState('');
  const create = useAction(async () => {
    const test = await testsApi.create(workspaceId, { title: title.trim(), productType });
    setNotice(`Created test ${test.title}.`);
    setTitle('');
    tests.reload();
  });
  return (
    <>
      <h2 id="tests-heading">Tests</h2>
      <InlineForm label="Create a test" submitLabel="Create test" busy={create.busy} onSubmit={() => void create.act()}>
        <Field label="New test title" name="test-title" required maxLength={200} value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
        <SelectField
          label="Kind"
          value={productType}
          options={PRODUCT_TYPES.map((type) => [type, type] as const)}
          onChange={(e) => setProductType(e.currentTarget.value as ProductType)}
        />
      </InlineForm>
      <ErrorMessage error={create.error} />
      {notice ? <Notice>{notice}</Notice> : null}
      <LoadedView loaded={tests}>
        {(list) =>
          list.length === 0 ? (
            <p class="empty">No tests in this workspace.</p>
          ) : (
            <ul aria-labelledby="tests-heading">
              {list.map((t) => (
                <li key={t.id}>
                  <a href={href(`/tests/${t.id}`)}>{t.title}</a> ({t.sessionCount} sessions)
                </li>
              ))}
            </ul>
          )
        }
      </LoadedView>
    </>
  );
}
