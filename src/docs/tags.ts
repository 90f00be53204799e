import { REAL_AUTH_SERVER_ID, type AuthorizationServer } from '../oauth/authorization-servers.js';

/** The groups of the API reference, in the order a new user needs them. */
export const TAG = {
  /** The real contract's tag for the session list, so generators group it alike. */
  results: 'General Session Data',
  /** The real contract's tag for QXscores. */
  qxScores: 'QXscore Data',
  /** The real contract's tag for a session's transcript, videos, clips and highlight reels. */
  videoData: 'Video Data',
  legacy: 'Legacy (v1)',
  customServer: 'Authorization server (form B)',
  realIdServer: "Authorization server (form B, the real service's id)",
  defaultServer: 'Authorization server default (form A)',
  webhooks: 'Webhooks',
  resources: 'Protected resources',
  mcp: 'MCP',
  operations: 'Operations',
} as const;

export const TAG_DESCRIPTIONS: { name: string; description: string }[] = [
  { name: TAG.results, description: 'Results (v2): the completed sessions of a test, page by page.' },
  { name: TAG.qxScores, description: "QXscores of a test, computed from its completed sessions' answers (docs/QXSCORE.md)." },
  {
    name: TAG.videoData,
    description:
      "Results (v2): a session's transcript (WebVTT), video and clips, a test's highlight reels: expiring download links (a clip's once it is cut), and the signed links themselves (Range supported).",
  },
  {
    name: TAG.legacy,
    description:
      'The Legacy (v1) family under /usertesting/api/v1: workspaces, their tests (studies, whose uuid is the testId), ' +
      'a test with its plan, its completed sessions by cursor (a test of any size), one session.',
  },
  {
    name: TAG.customServer,
    description: 'The custom authorization server (`/oauth2/<id>`, scope `studies:read`): tokens, keys, metadata, introspection, revocation.',
  },
  {
    name: TAG.realIdServer,
    description:
      `The same form B server's endpoints at the real service's id (\`/oauth2/${REAL_AUTH_SERVER_ID}\`), so a script written against ` +
      'the real service works with only the host changed. Its own issuer: its tokens name this id in `iss`.',
  },
  {
    name: TAG.defaultServer,
    description: 'The `default` authorization server (`/oauth2/default`, scope `public_api.read`): the same endpoints for form A.',
  },
  {
    name: TAG.webhooks,
    description:
      'What this service adds: subscriptions to events (a session completed, a transcript or video ready, a clip or reel generated, ' +
      'QXscores updated), POSTed signed per Standard Webhooks (docs/WEBHOOKS.md). Tokens need the webhooks:manage scope.',
  },
  {
    name: TAG.resources,
    description:
      'RFC 9728 metadata of the REST API and the MCP endpoint: which authorization servers issue their tokens, and the `resource` (RFC 8707) that binds a token to one of them.',
  },
  {
    name: TAG.mcp,
    description:
      'Extension: the Model Context Protocol endpoint, for AI assistants (Claude, ChatGPT, IDEs): read-only tools over the same results, with the same visibility (docs/MCP.md).',
  },
  { name: TAG.operations, description: 'Liveness and readiness probes for load balancers and orchestrators.' },
];

/** Where a server's operations are listed, and the suffix that keeps their operationIds unique. */
export function serverDocs(server: AuthorizationServer): { tag: string; suffix: string } {
  switch (server.kind) {
    case 'default':
      return { tag: TAG.defaultServer, suffix: 'DefaultServer' };
    case 'custom':
      return { tag: TAG.customServer, suffix: 'CustomServer' };
    case 'realId':
      return { tag: TAG.realIdServer, suffix: 'RealIdServer' };
  }
}
