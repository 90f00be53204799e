import { useState } from 'preact/hooks';
import { keysApi } from '../admin-api.js';
import { ConfirmButton, ErrorMessage, LoadedView, Notice, Page, formatTime, useAction, useLoad } from '../ui.js';

/** The keys that sign access tokens (public parts only: private keys never leave the server). */
export function KeysPage() {
  const keys = useLoad(() => keysApi.list(), []);
  const [notice, setNotice] = useState('');
  const rotate = useAction(async () => {
    const key = await keysApi.rotate();
    setNotice(`New signing key ${key.kid}; tokens signed by the previous key stay valid until they expire.`);
    keys.reload();
  });
  return (
    <Page title="Signing keys" actions={<ConfirmButton label="Rotate signing key" confirmLabel="Confirm: rotate signing key" onConfirm={() => void rotate.act()} />}>
      <ErrorMessage error={rotate.error} />
      {notice ? <Notice>{notice}</Notice> : null}
      <LoadedView loaded={keys}>
        {(list) => (
          <table>
            <caption>Keys published in the JWKS of every authorization server</caption>
            <thead>
              <tr>
                <th scope="col">Key id (kid)</th>
                <th scope="col">Algorithm</th>
                <th scope="col">Created</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {list.map((k) => (
                <tr key={k.kid}>
                  <td class="mono">{k.kid}</td>
                  <td>{k.alg}</td>
                  <td>{formatTime(k.createdAt)}</td>
                  <td>{k.retiredAt ? `retired ${formatTime(k.retiredAt)}` : 'signing'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </LoadedView>
    </Page>
  );
}
