import type { AuthorizationServer } from '../oauth/authorization-servers.js';

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
  defaultServer: 'Authorization server default (form A)',
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
    name: TAG.defaultServer,
    description: 'The `default` authorization server (`/oauth2/default`, scope `public_api.read`): the same endpoints for form A.',
  },
  { name: TAG.operations, description: 'Liveness and readiness probes for load balancers and orchestrators.' },
];

/** Where a server's operations are listed, and the suffix that keeps their operationIds unique. */
export function serverDocs(server: AuthorizationServer): { tag: string; suffix: string } {
  return server.form === 'A'
    ? { tag: TAG.defaultServer, suffix: 'DefaultServer' }
    : { tag: TAG.customServer, suffix: 'CustomServer' };
}
