import { useState } from 'preact/hooks';
import { keysApi, type SigningKey } from '../admin-api.js';
import { ConfirmButton, ErrorMessage, LoadedView, Notice, Page, TableHead, formatTime, useAction, useLoad } from '../ui.js';

/** The keys that sign access tokens (public parts only: private keys never leave the server). */
export function KeysPage() {
  const keys = useLoad(() => keysApi.list(), []);
  const [notice, setNotice] = useState('');
  const rotate = useAction(async () => {
    const key = await keysApi.rotate();
    setNotice(`New signing key ${key.kid}; the previous key stays published until the tokens it signed have expired.`);
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
            <TableHead columns={['Key id (kid)', 'Algorithm', 'Created', 'State']} />
            <tbody>
              {list.map((k) => (
                <tr key={k.kid}>
                  <td class="mono">{k.kid}</td>
                  <td>{k.alg}</td>
                  <td>{formatTime(k.createdAt)}</td>
                  <td>{keyState(k)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </LoadedView>
    </Page>
  );
}

function keyState(key: SigningKey): string {
  if (key.state === 'active') return 'signs new tokens';
  if (key.state === 'published') return `retired; published until ${formatTime(key.publishedUntil)}`;
  return `retired ${formatTime(key.retiredAt)}; expired`;
}
