import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { approve } from './authorize-flow.js';
import type { FormBrowser } from './form-browser.js';

/**
 * The OAuth side of an MCP client that signs its user in, as the official SDK drives one (in
 * memory): everything it knows it learns from the server's URL. `browser` is the user, signed
 * in, who presses Allow on the consent page; `callback` is where the browser was sent back.
 */
export class InMemoryMcpUserProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  /** Where the user's browser was sent back, with the code. */
  callback: URL | undefined;

  constructor(private readonly browser: FormBrowser) {}

  get redirectUrl() {
    return 'http://127.0.0.1:33418/callback';
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'SDK test client', redirect_uris: [this.redirectUrl], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  async redirectToAuthorization(url: URL) {
    const { answer } = await approve(this.browser, url.href);
    if (answer.status !== 303 || !answer.location) throw new Error(`consent did not redirect: ${answer.status} ${answer.body.slice(0, 200)}`);
    this.callback = new URL(answer.location);
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  /** The code the authorization server sent back. */
  get code(): string {
    const code = this.callback?.searchParams.get('code');
    if (!code) throw new Error('no authorization code came back');
    return code;
  }
}
