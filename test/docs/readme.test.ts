/** What the README shows a newcomer is what `demo` prints and what the service answers. */
import { describe, expect, it } from 'vitest';
import { DEMO_COMPLETED_COUNT, DEMO_SESSION_COUNT, DEMO_TEST_ID, DEMO_TEST_PLAN } from '../../src/cli/demo.js';
import { PACKAGE_VERSION } from '../../src/version.js';
import { startDemoDeployment } from '../helpers/demo-deployment.js';
import { fencedBlocks, readRepoFile } from '../helpers/markdown.js';

const README = readRepoFile('README.md');
const blocks = fencedBlocks(README);

/** The block of a `demo` output that starts with `# Form B`, up to the blank line that ends it. */
const formBIn = (text: string): string | undefined => /^# Form B[^\n]*\n(?:.+\n?)+/m.exec(text)?.[0].trimEnd();

const deployment = await startDemoDeployment();

describe('the README', () => {
  it('is read in one sitting (at most about 300 lines)', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(300);
  });

  it('shows the Form B commands `demo` prints, with placeholders where a deployment differs', () => {
    const { t, output, clientId, clientSecret, authorizationServerId } = deployment;
    const printed = formBIn(output)!
      .replaceAll(t.url, 'http://localhost:8080')
      .replaceAll(clientId, '<CLIENT_ID>')
      .replaceAll(clientSecret, '<CLIENT_SECRET>')
      .replaceAll(authorizationServerId, '<AUTHORIZATION_SERVER_ID>');
    const shown = blocks.map((b) => formBIn(b.code)).find((b) => b !== undefined);
    expect(shown).toBe(printed);
  });

  it('shows the first page of results those commands answer', async () => {
    const { t, clientId, clientSecret, authorizationServerId } = deployment;
    const shown = blocks.find((b) => b.language === 'json' && b.code.includes('"sessions"'))?.code;
    expect(shown).toBeDefined();
    const token = await fetch(`${t.url}/oauth2/${authorizationServerId}/v1/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'studies:read', client_id: clientId, client_secret: clientSecret }),
    });
    const { access_token } = (await token.json()) as { access_token: string };
    const page = await fetch(`${t.url}/api/v2/sessionResults?testId=${DEMO_TEST_ID}&rowsPerPage=10&pageNumber=1`, {
      headers: { authorization: `Bearer ${access_token}` },
    });
    expect(await page.json()).toEqual(JSON.parse(shown!));
  });

  it('says what `demo` seeds', () => {
    expect(README).toContain(`a test of ${DEMO_SESSION_COUNT} sessions (${DEMO_COMPLETED_COUNT} of them completed`);
    expect(README).toContain(`${DEMO_TEST_PLAN.tasks.length}-task plan`);
  });

  it('and the OpenAPI document carry the version npm installed', async () => {
    const { t } = deployment;
    const document = (await (await fetch(`${t.url}/openapi.json`)).json()) as { info: { version: string } };
    expect(document.info.version).toBe(PACKAGE_VERSION);
    expect(PACKAGE_VERSION).toBe((JSON.parse(readRepoFile('package.json')) as { version: string }).version);
  });
});
