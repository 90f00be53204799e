import { describe, expect, it } from 'vitest';
import { generateClientSecret } from '../oauth/client-secrets.js';
import { redactRequestUrl, redactSecrets } from './log-redaction.js';

const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIwb2FhYmMifQ.c2lnbmF0dXJlLWJ5dGVz';
const secret = generateClientSecret();
const uuid = '0b6f1c2e-3d4a-4b5c-8d9e-0f1a2b3c4d5e';

describe('redactRequestUrl', () => {
  it.each([
    [`/api/v2/sessionResults?testId=${uuid}&rowsPerPage=10`, true, `/api/v2/sessionResults?testId=${uuid}&rowsPerPage=10`],
    [`/api/v2/sessionResults?access_token=${jwt}`, true, '/api/v2/sessionResults?access_token=[redacted]'],
    [`/api/v2/sessionResults?token=short`, true, '/api/v2/sessionResults?token=[redacted]'],
    [`/docs?q=${secret}`, true, '/docs?q=[redacted]'],
    [`/docs?${jwt}`, true, '/docs?[redacted]'],
    [`/api/v1/workspaces/${jwt}`, true, '/api/v1/workspaces/[redacted]'],
    [`/api/v1/workspaces/%65${jwt.slice(1)}`, true, '/api/v1/workspaces/[redacted]'],
    [`/api/v1/workspaces/${uuid}`, true, `/api/v1/workspaces/${uuid}`],
    [`/x?q=Bearer%20${jwt}`, true, '/x?q=[redacted]'],
    [`/OAUTH2/default/v1/token?grant_type=client_credentials`, false, '/OAUTH2/default/v1/token?[redacted]'],
    [`//oauth2/${secret}/v1/token`, false, '//oauth2/[redacted]/v1/token'],
  ])('%s (routed: %s) is logged as %s', (url, routed, logged) => {
    expect(redactRequestUrl(url, routed)).toBe(logged);
  });
});

describe('redactSecrets', () => {
  it('replaces token- and secret-shaped runs in free text and keeps the rest', () => {
    expect(redactSecrets(`rowsPerPage must be an integer (got "${secret}") for ${uuid}`)).toBe(
      `rowsPerPage must be an integer (got "[redacted]") for ${uuid}`,
    );
    expect(redactSecrets(`bad ${jwt}.`)).toBe('bad [redacted].');
  });
});
