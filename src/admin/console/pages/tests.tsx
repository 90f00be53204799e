import { testsApi, workspacesApi, type SessionRow, type Test } from '../admin-api.js';
import { ReelsSection } from './reels.js';
import { href, navigate, type Route } from '../router.js';
import { LoadedView, Page, Pager, SelectField, TableHead, counted, formatTime, useLoad } from '../ui.js';
import { SessionPage } from './session.js';

const PAGE_SIZE = 25;
/** Statuses every test may show; a test's own counts add any other it holds. */
const COMMON_STATUSES = ['COMPLETE', 'IN_PROGRESS', 'ABANDONED'];

export function TestsPage({ route }: { route: Route }) {
  const [, testId, sub, sessionId] = route.segments;
  if (testId && sub === 'sessions' && sessionId) return <SessionPage testId={testId} sessionId={sessionId} />;
  if (testId) return <TestPage id={testId} status={route.params.get('status') ?? ''} page={pageNumber(route.params.get('page'))} />;
  return <TestList workspaceId={route.params.get('workspace') ?? ''} />;
}

function TestList({ workspaceId }: { workspaceId: string }) {
  const workspaces = useLoad(() => workspacesApi.list(), []);
  const chosen = workspaceId || workspaces.data?.[0]?.id || '';
  const tests = useLoad(() => (chosen ? testsApi.list(chosen) : Promise.resolve([])), [chosen]);
  return (
    <Page title="Tests">
      <LoadedView loaded={workspaces}>
        {(list) =>
          list.length === 0 ? (
            <p class="empty">No workspaces yet: tests belong to a workspace.</p>
          ) : (
            <div class="filters">
              <SelectField
                label="Workspace"
                value={chosen}
                options={list.map((w) => [w.id, w.name] as const)}
                onChange={(e) => navigate('/tests', { workspace: e.currentTarget.value })}
              />
            </div>
          )
        }
      </LoadedView>
      <LoadedView loaded={tests}>
        {(list) =>
          list.length === 0 ? (
            chosen ? <p class="empty">No tests in this workspace.</p> : null
          ) : (
            <table>
              <caption>{counted(list.length, 'test')}</caption>
              <TableHead columns={['Title', 'Kind', 'Sessions', 'Created']} />
              <tbody>
                {list.map((t) => (
                  <tr key={t.id}>
                    <td>
                      <a href={href(`/tests/${t.id}`)}>{t.title}</a>
                    </td>
                    <td>{t.productType}</td>
                    <td>{sessionCounts(t)}</td>
                    <td>{formatTime(t.createdAt)}</td>
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

const statusesOf = (test: Test | undefined): string[] => [...new Set([...COMMON_STATUSES, ...Object.keys(test?.sessionsByStatus ?? {})])];

/** "12 (10 COMPLETE, 2 ABANDONED)": every session, and how many of each status. */
function sessionCounts(test: Test): string {
  const byStatus = Object.entries(test.sessionsByStatus ?? {}).filter(([, n]) => n > 0);
  return byStatus.length === 0 ? String(test.sessionCount) : `${test.sessionCount} (${byStatus.map(([status, n]) => `${n} ${status}`).join(', ')})`;
}

const pageNumber = (text: string | null): number => {
  const n = Number(text);
  return Number.isInteger(n) && n >= 1 ? n : 1;
};

/** A test and its sessions, a page at a time, filtered by status; page and filter are in the address. */
function TestPage({ id, status, page }: { id: string; status: string; page: number }) {
  const test = useLoad(() => testsApi.get(id), [id]);
  const sessions = useLoad(() => testsApi.sessions(id, { status: status || undefined, limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE }), [id, status, page]);
  const onPage = (wanted: number) => navigate(`/tests/${id}`, { status, page: wanted });
  return (
    <Page title={test.data ? `Test ${test.data.title}` : 'Test'}>
      <p class="breadcrumb">
        <a href={href('/tests')}>All tests</a>
      </p>
      <LoadedView loaded={test}>
        {(t) => (
          <dl class="details">
            <dt>Id</dt>
            <dd class="mono">{t.id}</dd>
            <dt>Workspace</dt>
            <dd>
              <a href={href(`/workspaces/${t.workspaceId}`)} class="mono">
                {t.workspaceId}
              </a>
            </dd>
            <dt>Kind</dt>
            <dd>{t.productType}</dd>
            <dt>Sessions</dt>
            <dd>{sessionCounts(t)}</dd>
            <dt>Created</dt>
            <dd>{formatTime(t.createdAt)}</dd>
          </dl>
        )}
      </LoadedView>
      <h2 id="sessions-heading">Sessions</h2>
      <div class="filters">
        <SelectField
          label="Status"
          value={status}
          options={[['', 'Any status'], ...statusesOf(test.data).map((s) => [s, s] as const)]}
          onChange={(e) => navigate(`/tests/${id}`, { status: e.currentTarget.value })}
        />
        <a href={href('/imports', { workspace: test.data?.workspaceId, test: id })}>Import sessions into this test</a>
      </div>
      <LoadedView loaded={sessions}>
        {(result) => (
          <>
            <p class="hint">
              {counted(result.totalCount, 'session')}
              {status ? ` with status ${status}` : ''}
            </p>
            <SessionTable testId={id} sessions={result.sessions} />
            <Pager label="Sessions" page={page} hasNext={page * PAGE_SIZE < result.totalCount} onPage={onPage} />
          </>
        )}
      </LoadedView>
      <ReelsSection testId={id} />
    </Page>
  );
}

function SessionTable({ testId, sessions }: { testId: string; sessions: SessionRow[] }) {
  if (sessions.length === 0) return <p class="empty">No sessions match.</p>;
  return (
    <table aria-labelledby="sessions-heading">
      <TableHead columns={['Session', 'Status', 'Started', 'Finished', 'Media']} />
      <tbody>
        {sessions.map((s) => (
          <tr key={s.sessionId}>
            <td>
              <a class="mono" href={href(`/tests/${testId}/sessions/${s.sessionId}`)}>
                {s.sessionId}
              </a>
            </td>
            <td>{s.status}</td>
            <td>{formatTime(s.startTime)}</td>
            <td>{formatTime(s.finishTime)}</td>
            <td>
              <MediaMarks session={s} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Which media a session has, as words (read out as they are shown): "video", "transcript", or a dash. */
function MediaMarks({ session }: { session: SessionRow }) {
  const marks = [session.hasVideo ? 'video' : null, session.hasTranscript ? 'transcript' : null].filter((mark) => mark !== null);
  if (marks.length === 0) return <span class="hint">—</span>;
  return (
    <span class="media-marks">
      {marks.map((mark) => (
        <span key={mark} class={`media-mark ${mark}`}>
          {mark}
        </span>
      ))}
    </span>
  );
}
