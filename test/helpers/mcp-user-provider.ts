import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { approve } from './authorize-flow.js';
import type { FormBrowser } from './form-browser.js';

/** The user at the authorization URL: signs in if asked, presses Allow, and says where the browser was sent back. */
export type UserAllows = (authorizationUrl: URL) => Promise<URL>;

/** The user as a signed-in form browser (no page rendering): Allow on the consent page, the redirect it answers. */
export const formBrowserAllows =
  (browser: FormBrowser): UserAllows =>
  async (url) => {
    const { answer } = await approve(browser, url.href);
    if (answer.status !== 303 || !answer.location) throw new Error(`consent did not redirect: ${answer.status} ${answer.body.slice(0, 200)}`);
    return new URL(answer.location);
  };

/**
 * The OAuth side of an MCP client that signs its user in, as the official SDK drives one (in
 * memory): everything it knows it learns from the server's URL. `userAllows` is the user's
 * browser (a form browser, or Chromium); `callback` is where it was sent back, with the code.
 */
export class InMemoryMcpUserProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  callback: URL | undefined;

  constructor(
    private readonly userAllows: UserAllows,
    readonly redirectUrl = 'http://127.0.0.1:33418/callback',
    private readonly clientName = 'SDK test client',
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return { client_name: this.clientName, redirect_uris: [this.redirectUrl], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
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
    this.callback = await this.userAllows(url);
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
