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
  { additionalProperties: true, title: 'TokenRequest' },
);
export type TokenRequestBody = Static<typeof TokenRequestBody>;

export const TokenResponse = Type.Object(
  {
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ description: 'Seconds until the token expires.', examples: [3600] }),
    access_token: Type.String({ description: 'An RFC 9068 JWT access token.' }),
    scope: Type.String({ description: 'The scope granted.' }),
  },
  { description: 'RFC 6749 §5.1 access token response.', title: 'TokenResponse' },
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
        { additionalProperties: true, title: 'Jwk' },
      ),
    ),
  },
  { description: 'RFC 7517 JWK Set: the public keys that verify access tokens.', title: 'JwkSet' },
);

/** RFC 7662 §2.1 and RFC 7009 §2.1: a token plus the client's own authentication. */
export const TokenOperationBody = Type.Object(
  {
    token: Type.String({ description: 'The access token.' }),
    token_type_hint: Type.Optional(Type.String({ description: 'Optional; only access tokens exist here.' })),
    client_id: Type.Optional(Type.String({ description: 'With client_secret_post; omit when using HTTP Basic.' })),
    client_secret: Type.Optional(Type.String({ description: 'With client_secret_post; omit when using HTTP Basic.' })),
  },
  { additionalProperties: true, title: 'TokenOperationRequest' },
);
export type TokenOperationBody = Static<typeof TokenOperationBody>;

export const IntrospectionResponse = Type.Object(
  {
    active: Type.Boolean(),
    scope: Type.Optional(Type.String()),
    client_id: Type.Optional(Type.String()),
    token_type: Type.Optional(Type.Literal('Bearer')),
    exp: Type.Optional(Type.Integer()),
    iat: Type.Optional(Type.Integer()),
    sub: Type.Optional(Type.String()),
    aud: Type.Optional(Type.String()),
    iss: Type.Optional(Type.String()),
    jti: Type.Optional(Type.String()),
    username: Type.Optional(Type.String({ description: 'Email of the API user holding the credential.' })),
  },
  { description: 'RFC 7662 §2.2: `{"active": false}` alone for anything not currently valid.', title: 'IntrospectionResponse' },
);

const StringList = Type.Array(Type.String());

export const AuthorizationServerMetadata = Type.Object(
  {
    issuer: Type.String(),
    token_endpoint: Type.String(),
    jwks_uri: Type.String(),
    introspection_endpoint: Type.String(),
    revocation_endpoint: Type.String(),
    grant_types_supported: StringList,
    response_types_supported: StringList,
    scopes_supported: StringList,
    token_endpoint_auth_methods_supported: StringList,
    introspection_endpoint_auth_methods_supported: StringList,
    revocation_endpoint_auth_methods_supported: StringList,
    service_documentation: Type.String(),
  },
  { description: 'RFC 8414 authorization server metadata.', title: 'AuthorizationServerMetadata' },
);
