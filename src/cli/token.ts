import type { Command } from 'commander';
import { addCredentialOptions, openResultsClient, type CredentialFlags } from './api-credentials.js';
import { emit, JSON_FLAG, JSON_FLAG_HELP, type OutputOptions } from './output.js';

/**
 * `token`: mints an access token with the API user's client credentials and prints it, for
 * scripts that call the API with curl. With --json, the token response as RFC 6749 §5.1
 * shapes it (expires_in counts from now).
 */
export function registerTokenCommand(program: Command): void {
  addCredentialOptions(
    program
      .command('token')
      .description("print an access token minted with an API user's client credentials"),
  )
    .option(JSON_FLAG, JSON_FLAG_HELP)
    .action(async (options: CredentialFlags & OutputOptions) => {
      const client = await openResultsClient(options);
      const token = await client.getAccessTokenInfo();
      emit(
        options,
        {
          access_token: token.accessToken,
          token_type: token.tokenType,
          expires_in: Math.max(0, Math.floor((token.expiresAt - Date.now()) / 1000)),
          scope: token.scope,
        },
        () => token.accessToken,
      );
    });
}
