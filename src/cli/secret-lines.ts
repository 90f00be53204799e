/** How a command shows a client secret it has just made: printed this once, never stored. */

export const SECRET_SHOWN_ONCE =
  'The client secret is shown only this once: it is not stored (only a hash of it is). ' +
  'Hand it to the user through a secure channel.';

/** The lines that show a freshly issued client id and secret. */
export function secretLines(clientId: string, clientSecret: string): string {
  return [`  client_id:     ${clientId}`, `  client_secret: ${clientSecret}`].join('\n');
}
