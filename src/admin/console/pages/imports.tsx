import { useId, useRef, useState } from 'preact/hooks';
import { ApiError, upload } from '../api.js';
import { testsApi, workspacesApi, type ImportReport, type RefusedImport, type Test } from '../admin-api.js';
import { href, type Route } from '../router.js';
import { ErrorMessage, LoadedView, Notice, Page, SelectField, TableHead, useLoad } from '../ui.js';

type Outcome = { kind: 'imported'; report: ImportReport } | { kind: 'bad-lines'; refusal: RefusedImport } | { kind: 'failed'; error: unknown };

const refusedImport = (body: unknown): RefusedImport | undefined => {
  const problem = body as Partial<RefusedImport> | undefined;
  return problem && typeof problem.detail === 'string' && Array.isArray(problem.errors) ? (problem as RefusedImport) : undefined;
};

const LINE = /^line (\d+): ([\s\S]*)$/;

/** Sends a session file to a test's import route, with the upload's progress, and keeps what came back. */
function useSessionUpload() {
  const [progress, setProgress] = useState<number | undefined>(undefined);
  const [outcome, setOutcome] = useState<Outcome | undefined>(undefined);
  const send = async (testId: string, picked: File) => {
    const form = new FormData();
    form.append('file', picked, picked.name);
    setOutcome(undefined);
    setProgress(0);
    try {
      const report = await upload<ImportReport>(testsApi.importUrl(testId), form, setProgress);
      setOutcome({ kind: 'imported', report });
    } catch (error) {
      const refusal = error instanceof ApiError ? refusedImport(error.body) : undefined;
      setOutcome(refusal ? { kind: 'bad-lines', refusal } : { kind: 'failed', error });
    } finally {
      setProgress(undefined);
    }
  };
  return { progress, outcome, send };
}

/**
 * Uploads a session file (NDJSON or CSV, as `results-api sessions import` reads) into a test:
 * a progress bar while it is sent, then what was imported, or every bad line the server
 * reported (a file with a bad line imports nothing).
 */
export function ImportsPage({ route }: { route: Route }) {
  const workspaces = useLoad(() => workspacesApi.list(), []);
  const [workspaceId, setWorkspaceId] = useState(route.params.get('workspace') ?? '');
  const chosenWorkspace = workspaceId || workspaces.data?.[0]?.id || '';
  const tests = useLoad(() => (chosenWorkspace ? testsApi.list(chosenWorkspace) : Promise.resolve([])), [chosenWorkspace]);
  const [testId, setTestId] = useState(route.params.get('test') ?? '');
  const chosen = (tests.data?.some((t) => t.id === testId) ? testId : undefined) ?? tests.data?.[0]?.id ?? '';
  const { progress, outcome, send } = useSessionUpload();
  return (
    <Page title="Import sessions">
      <p>
        A session file is NDJSON (<code>.ndjson</code>, one session a line) or CSV (<code>.csv</code>, with a header line), as{' '}
        <code>results-api sessions import</code> reads. A file with any bad line imports nothing.
      </p>
      <LoadedView loaded={workspaces}>
        {(list) => (
          <SelectField
            label="Workspace"
            value={chosenWorkspace}
            options={list.map((w) => [w.id, w.name] as const)}
            onChange={(e) => setWorkspaceId(e.currentTarget.value)}
          />
        )}
      </LoadedView>
      <LoadedView loaded={tests}>
        {(list) =>
          list.length === 0 ? (
            <p class="empty">There is no test to import into in this workspace.</p>
          ) : (
            <SessionFileForm tests={list} chosen={chosen} onChoose={setTestId} busy={progress !== undefined} onSend={(file) => void send(chosen, file)} />
          )
        }
      </LoadedView>
      {progress !== undefined ? (
        <div class="field">
          <label for="upload-progress">{progress < 1 ? 'Uploading…' : 'Uploaded; importing…'}</label>
          <progress id="upload-progress" max={1} value={progress}>
            {Math.round(progress * 100)}%
          </progress>
        </div>
      ) : null}
      <ImportOutcome outcome={outcome} testId={chosen} />
    </Page>
  );
}

function SessionFileForm(props: { tests: Test[]; chosen: string; onChoose: (testId: string) => void; busy: boolean; onSend: (file: File) => void }) {
  const file = useRef<HTMLInputElement>(null);
  const fileId = useId();
  return (
    <form
      class="stack"
      onSubmit={(event) => {
        event.preventDefault();
        const picked = file.current?.files?.[0];
        if (picked && props.chosen) props.onSend(picked);
      }}
    >
      <SelectField label="Test" value={props.chosen} options={props.tests.map((t) => [t.id, t.title] as const)} onChange={(e) => props.onChoose(e.currentTarget.value)} />
      <div class="field">
        <label for={fileId}>Session file</label>
        <input id={fileId} ref={file} type="file" name="file" accept=".ndjson,.jsonl,.csv" required />
      </div>
      <div>
        <button type="submit" disabled={props.busy}>
          Upload and import
        </button>
      </div>
    </form>
  );
}

function ImportOutcome({ outcome, testId }: { outcome: Outcome | undefined; testId: string }) {
  if (!outcome) return null;
  if (outcome.kind === 'failed') return <ErrorMessage error={outcome.error} />;
  if (outcome.kind === 'imported') {
    const { inserted, updated, unchanged } = outcome.report;
    return (
      <Notice>
        Imported: {inserted} new, {updated} updated, {unchanged} unchanged. <a href={href(`/tests/${testId}`)}>See the test's sessions</a>.
      </Notice>
    );
  }
  const { detail, errors } = outcome.refusal;
  const lines = errors.map((text) => LINE.exec(text)).filter((match) => match !== null);
  const notes = errors.filter((text) => !LINE.test(text));
  return (
    <section aria-labelledby="bad-lines-heading">
      <ErrorMessage error={detail} />
      <h2 id="bad-lines-heading">{lines.length === 1 ? 'The bad line' : 'The bad lines'}</h2>
      <div class="line-errors">
        <table aria-labelledby="bad-lines-heading">
          <TableHead columns={['Line', 'Problem']} />
          <tbody>
            {lines.map(([text, line, problem]) => (
              <tr key={text}>
                <td>{line}</td>
                <td>{problem}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {notes.map((note) => (
        <p key={note}>{note}</p>
      ))}
    </section>
  );
}
