import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfigPath, resolveClientOptions } from './api-credentials.js';

let dir: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'results-api-credentials-'));
  env = { XDG_CONFIG_HOME: join(dir, 'config') };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const writeConfig = (content: unknown, mode = 0o600, path = defaultConfigPath(env)): string => {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  chmodSync(path, mode);
  return path;
};

describe('where API-user commands find their credentials', () => {
  it('reads the environment; the URLs default to a server on this machine, the form to A', async () => {
    env.RESULTS_API_CLIENT_ID = 'id-from-env';
    env.RESULTS_API_CLIENT_SECRET = 'secret-from-env';
    expect(await resolveClientOptions({}, { env })).toEqual({
      clientId: 'id-from-env',
      clientSecret: 'secret-from-env',
      authUrl: 'http://localhost:8080',
      baseUrl: 'http://localhost:8080',
    });
  });

  it('reads the default config file, the shape `demo --json` prints, ignoring its other keys', async () => {
    writeConfig({
      clientId: 'id-from-file',
      clientSecret: 'secret-from-file',
      testId: '9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f',
      workspaceId: '5b3c2a1e-7d4f-4e8a-9c6b-1a2b3c4d5e6f',
      authUrl: 'https://auth.example.com',
      baseUrl: 'https://api.example.com',
      authorizationServerId: 'ausABCDEFGHIJKLMNOPQ',
    });
    expect(await resolveClientOptions({}, { env })).toEqual({
      clientId: 'id-from-file',
      clientSecret: 'secret-from-file',
      authUrl: 'https://auth.example.com',
      baseUrl: 'https://api.example.com',
      authorizationServerId: 'ausABCDEFGHIJKLMNOPQ',
    });
  });

  it('takes each field from the environment first, then the file; one URL stands for both', async () => {
    writeConfig({ clientId: 'id-from-file', clientSecret: 'secret-from-file', baseUrl: 'https://results.example.com', form: 'b' });
    env.RESULTS_API_CLIENT_SECRET = 'secret-from-env';
    env.RESULTS_API_AUTH_SERVER_ID = 'ausFromEnv';
    expect(await resolveClientOptions({}, { env })).toEqual({
      clientId: 'id-from-file',
      clientSecret: 'secret-from-env',
      authUrl: 'https://results.example.com',
      baseUrl: 'https://results.example.com',
      authorizationServerId: 'ausFromEnv',
      form: 'B',
    });
  });

  it('--client-secret-stdin overrides both, without its trailing newline', async () => {
    env.RESULTS_API_CLIENT_ID = 'id';
    env.RESULTS_API_CLIENT_SECRET = 'secret-from-env';
    const options = await resolveClientOptions({ clientSecretStdin: true }, { env, readStdin: async () => 'secret-from-stdin\n' });
    expect(options.clientSecret).toBe('secret-from-stdin');
    await expect(resolveClientOptions({ clientSecretStdin: true }, { env, readStdin: async () => '' })).rejects.toThrow(
      '--client-secret-stdin: stdin was empty; pipe the client secret into the command',
    );
  });
});

describe('where API-user commands find their credentials: refusals', () => {
  it('refuses a config file that others may read, naming the fix', async () => {
    const path = writeConfig({ clientId: 'id', clientSecret: 'secret' }, 0o644);
    await expect(resolveClientOptions({}, { env })).rejects.toMatchObject({
      exitCode: 2,
      message: `config file ${path} has permissions 0644; it holds a client secret, so only its owner may read it: run chmod 600 ${path}`,
    });
    chmodSync(path, 0o640);
    await expect(resolveClientOptions({}, { env })).rejects.toThrow('has permissions 0640');
    chmodSync(path, 0o400);
    expect((await resolveClientOptions({}, { env })).clientId).toBe('id');
  });

  it('--config names another file; missing, it is an error (the default file may be missing)', async () => {
    const path = writeConfig({ clientId: 'id', clientSecret: 'secret' }, 0o600, join(dir, 'elsewhere.json'));
    expect((await resolveClientOptions({ config: path }, { env })).clientId).toBe('id');
    await expect(resolveClientOptions({ config: join(dir, 'nope.json') }, { env })).rejects.toThrow(
      `cannot read config file ${join(dir, 'nope.json')}: no such file`,
    );
  });

  it('says what is missing and where to put it', async () => {
    await expect(resolveClientOptions({}, { env })).rejects.toMatchObject({
      exitCode: 2,
      message: `no client id: set RESULTS_API_CLIENT_ID and RESULTS_API_CLIENT_SECRET, or put clientId and clientSecret in ${defaultConfigPath(env)}`,
    });
    env.RESULTS_API_CLIENT_ID = 'id';
    await expect(resolveClientOptions({}, { env })).rejects.toThrow(/^no client secret: .* \(or use --client-secret-stdin\)$/);
  });

  it('refuses a config file that is not a JSON object of strings, and a form other than A or B', async () => {
    const path = writeConfig('{"clientId": ');
    await expect(resolveClientOptions({}, { env })).rejects.toThrow(`config file ${path} is not valid JSON`);
    writeConfig(['id']);
    await expect(resolveClientOptions({}, { env })).rejects.toThrow(`config file ${path} must hold a JSON object`);
    writeConfig({ clientId: 42 });
    await expect(resolveClientOptions({}, { env })).rejects.toThrow(`config file ${path}: clientId must be a string`);
    writeConfig({ clientId: 'id', clientSecret: 'secret', form: 'C' });
    await expect(resolveClientOptions({}, { env })).rejects.toThrow('RESULTS_API_FORM (or "form" in the config file) must be A or B (got "C")');
  });

  it('the default path follows XDG_CONFIG_HOME, else ~/.config', () => {
    expect(defaultConfigPath({ XDG_CONFIG_HOME: '/x' })).toBe('/x/results-api/credentials.json');
    expect(defaultConfigPath({})).toMatch(/\/\.config\/results-api\/credentials\.json$/);
  });
});
