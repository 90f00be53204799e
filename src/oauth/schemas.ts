import { Type, type Static } from '@sinclair/typebox';

/** RFC 6749 §4.4.2 and §2.3.1: the token request's form keys. */
export const TokenRequestBody = Type.Object(
  {
    grant_type: Type.String({
      description: '`client_credentials`, or for an app acting for a user `authorization_code` or `refresh_token`.',
      examples: ['client_credentials'],
    }),
    scope: Type.Optional(
      Type.String({
        description: "Space-separated scopes. Omitted: the server's scope (`public_api.read` on `default`, `studies:read` on the custom server).",
      }),
    ),
    resource: Type.Optional(
      Type.Union([Type.String(), Type.Array(Type.String(), { maxItems: 8 })], {
        description:
          'RFC 8707: the resource the token is for, `BASE_URL` (the REST API) or `BASE_URL/mcp` (the MCP endpoint). ' +
          "Omitted: the server's own audience, good for the REST API only. Several, or another URI: `invalid_target`.",
        examples: ['https://results.example.com/mcp'],
      }),
    ),
    client_id: Type.Optional(Type.String({ description: 'With client_secret_post; omit when using HTTP Basic.' })),
    client_secret: Type.Optional(Type.String({ description: 'With client_secret_post; omit when using HTTP Basic.' })),
    code: Type.Optional(Type.String({ description: 'authorization_code: the code the authorization endpoint sent back.' })),
    redirect_uri: Type.Optional(Type.String({ description: 'authorization_code: the redirect URI of the authorization request.' })),
    code_verifier: Type.Optional(Type.String({ description: 'authorization_code: the PKCE verifier (RFC 7636) of the request\'s S256 challenge.' })),
    refresh_token: Type.Optional(Type.String({ description: 'refresh_token: the refresh token last issued; it is replaced by a new one.' })),
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
    refresh_token: Type.Optional(
      Type.String({ description: 'authorization_code and refresh_token grants: the next refresh token; it works once.' }),
    ),
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
    token: Type.String({ description: 'The access token, or an app\'s refresh token.' }),
    token_type_hint: Type.Optional(Type.String({ description: 'Optional and only a hint (`access_token`, `refresh_token`): every kind is looked for.' })),
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
    authorization_endpoint: Type.String({ description: 'Where a user approves an app (authorization code with PKCE).' }),
    token_endpoint: Type.String(),
    jwks_uri: Type.String(),
    introspection_endpoint: Type.String(),
    revocation_endpoint: Type.String(),
    grant_types_supported: StringList,
    response_types_supported: StringList,
    response_modes_supported: StringList,
    code_challenge_methods_supported: StringList,
    authorization_response_iss_parameter_supported: Type.Boolean({ description: 'RFC 9207: authorization responses carry iss.' }),
    scopes_supported: StringList,
    token_endpoint_auth_methods_supported: StringList,
    introspection_endpoint_auth_methods_supported: StringList,
    revocation_endpoint_auth_methods_supported: StringList,
    service_documentation: Type.String(),
    registration_endpoint: Type.Optional(Type.String({ description: 'RFC 7591 dynamic registration of public apps (absent when DYNAMIC_REGISTRATION=off).' })),
    client_id_metadata_document_supported: Type.Optional(
      Type.Boolean({ description: 'A client_id that is an https URL names its client ID metadata document (absent when CLIENT_METADATA_DOCUMENTS=off).' }),
    ),
  },
  { description: 'RFC 8414 authorization server metadata.', title: 'AuthorizationServerMetadata' },
);
