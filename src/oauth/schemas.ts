import { Type, type Static } from '@sinclair/typebox';

/** RFC 6749 §4.4.2 and §2.3.1: the token request's form keys. */
export const TokenRequestBody = Type.Object(
  {
    grant_type: Type.String({ description: 'Must be `client_credentials`.', examples: ['client_credentials'] }),
    scope: Type.Optional(
      Type.String({
        description: "Space-separated scopes. Omitted: the server's scope (`public_api.read` on `default`, `studies:read` on the custom server).",
      }),
    ),
    client_id: Type.Optional(Type.String({ description: 'With client_secret_post; omit when using HTTP Basic.' })),
    client_secret: Type.Optional(Type.String({ description: 'With client_secret_post; omit when using HTTP Basic.' })),
  },
  { additionalProperties: true },
);
export type TokenRequestBody = Static<typeof TokenRequestBody>;

export const TokenResponse = Type.Object(
  {
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ description: 'Seconds until the token expires.', examples: [3600] }),
    access_token: Type.String({ description: 'An RFC 9068 JWT access token.' }),
    scope: Type.String({ description: 'The scope granted.' }),
  },
  { description: 'RFC 6749 §5.1 access token response.' },
);

export const OAuthErrorBody = Type.Object(
  {
    error: Type.String({ description: 'RFC 6749 §5.2 error code.', examples: ['invalid_client'] }),
    error_description: Type.String(),
  },
  { description: 'RFC 6749 §5.2 error response.' },
);

export const JwkSet = Type.Object(
  {
    keys: Type.Array(
      Type.Object(
        {
          kty: Type.String(),
          kid: Type.String(),
          alg: Type.String(),
          use: Type.String(),
          n: Type.String(),
          e: Type.String(),
        },
        { additionalProperties: true },
      ),
    ),
  },
  { description: 'RFC 7517 JWK Set: the public keys that verify access tokens.' },
);
