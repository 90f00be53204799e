import { useState } from 'preact/hooks';
import { PRODUCT_TYPES, testsApi, workspacesApi, type ProductType, type Workspace } from '../admin-api.js';
import { href, type Route } from '../router.js';
import { useSignedIn } from '../session.js';
import { ConfirmButton, ErrorMessage, Field, LoadedView, Notice, Page, SelectField, formatTime, useAction, useLoad } from '../ui.js';

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
        <form
          class="inline"
          aria-label="Create a workspace"
          onSubmit={(event) => {
            event.preventDefault();
            void create.act();
          }}
        >
          <Field label="New workspace name" name="workspace-name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          <button type="submit" disabled={create.busy}>
            Create workspace
          </button>
        </form>
      ) : null}
      <ErrorMessage error={create.error} />
      {created ? (
        <Notice>
          Created workspace <a href={href(`/workspaces/${created.id}`)}>{created.name}</a>.
        </Notice>
      ) : null}
      <LoadedView loaded={workspaces}>
        {(list) =>
          list.length === 0 ? (
            <p class="empty">No workspaces yet.</p>
          ) : (
            <table>
              <caption>{list.length === 1 ? '1 workspace' : `${list.length} workspaces`}</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Id</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {list.map((w) => (
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
          )
        }
      </LoadedView>
    </Page>
  );
}

function WorkspacePage({ id }: { id: string }) {
  const workspace = useLoad(async () => (await workspacesApi.list()).find((w) => w.id === id), [id]);
  const members = useLoad(() => workspacesApi.members(id), [id]);
  const tests = useLoad(() => testsApi.list(id), [id]);
  const [email, setEmail] = useState('');
  const [notice, setNotice] = useState('');
  const add = useAction(async () => {
    const member = await workspacesApi.addMember(id, email.trim());
    setNotice(`Added ${member.email}.`);
    setEmail('');
    members.reload();
  });
  const remove = useAction(async (memberEmail: string) => {
    await workspacesApi.removeMember(id, memberEmail);
    setNotice(`Removed ${memberEmail}.`);
    members.reload();
  });
  const [testTitle, setTestTitle] = useState('');
  const [productType, setProductType] = useState<ProductType>('SURVEY');
  const [testNotice, setTestNotice] = useState('');
  const createTest = useAction(async () => {
    const test = await testsApi.create(id, { title: testTitle.trim(), productType });
    setTestNotice(`Created test ${test.title}.`);
    setTestTitle('');
    tests.reload();
  });
  const title = workspace.data ? `Workspace ${workspace.data.name}` : 'Workspace';
  return (
    <Page title={title}>
      <p class="breadcrumb">
        <a href={href('/workspaces')}>All workspaces</a> · <span class="mono">{id}</span>
      </p>
      <h2 id="members-heading">Members</h2>
      <p class="hint">Members are API users (by email) whose tokens may read this workspace's tests.</p>
      <form
        class="inline"
        aria-labelledby="members-heading"
        onSubmit={(event) => {
          event.preventDefault();
          void add.act();
        }}
      >
        <Field label="Member email" type="email" name="member-email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        <button type="submit" disabled={add.busy}>
          Add member
        </button>
      </form>
      <ErrorMessage error={add.error ?? remove.error} />
      {notice ? <Notice>{notice}</Notice> : null}
      <LoadedView loaded={members}>
        {(list) =>
          list.length === 0 ? (
            <p class="empty">No members yet.</p>
          ) : (
            <table aria-labelledby="members-heading">
              <thead>
                <tr>
                  <th scope="col">Email</th>
                  <th scope="col">Added</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
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
      <h2 id="tests-heading">Tests</h2>
      <form
        class="inline"
        aria-label="Create a test"
        onSubmit={(event) => {
          event.preventDefault();
          void createTest.act();
        }}
      >
        <Field label="New test title" name="test-title" required maxLength={200} value={testTitle} onInput={(e) => setTestTitle(e.currentTarget.value)} />
        <SelectField
          label="Kind"
          value={productType}
          options={PRODUCT_TYPES.map((type) => [type, type] as const)}
          onChange={(e) => setProductType(e.currentTarget.value as ProductType)}
        />
        <button type="submit" disabled={createTest.busy}>
          Create test
        </button>
      </form>
      <ErrorMessage error={createTest.error} />
      {testNotice ? <Notice>{testNotice}</Notice> : null}
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
    </Page>
  );
}
