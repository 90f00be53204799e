/**
 * The admin API as the console calls it: one function per route, every path written once.
 * Routes and shapes: docs/ADMIN-API.md (and the listener's /admin/api/openapi.json).
 */
import { del, get, post, put, query } from './api.js';
import type { AdminRole } from './session.js';

export const ADMIN_API = '/admin/api';

export interface AdminView {
  id: string;
  email: string;
  role: AdminRole;
  passwordSet: boolean;
  totpEnabled: boolean;
  createdAt: string;
}

export interface Me {
  admin: AdminView;
  /** The workspaces an account admin administers. */
  workspaces: string[];
  csrfToken: string | null;
}

export const adminApi = {
  me: () => get<Me>(`${ADMIN_API}/me`),
  signIn: (body: { email: string; password: string; totpCode?: string }) => post<Me>(`${ADMIN_API}/sign-in`, body),
  signOut: () => post<void>(`${ADMIN_API}/sign-out`),
  setup: (body: { token: string; password: string }) => post<AdminView>(`${ADMIN_API}/setup`, body),
  startTotp: () => post<{ secret: string; uri: string }>(`${ADMIN_API}/me/totp`),
  confirmTotp: (code: string) => post<{ totpEnabled: true }>(`${ADMIN_API}/me/totp/confirm`, { code }),
};

export interface Workspace {
  id: string;
  name: string;
  createdAt: string;
}
export interface Member {
  workspaceId: string;
  email: string;
  addedAt: string;
}
export interface ApiUser {
  id: string;
  email: string;
  status: 'active' | 'disabled';
  createdAt: string;
}
export interface Credential {
  clientId: string;
  email: string;
  userId: string;
  status: 'active' | 'revoked';
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  activeSecrets: number;
}
/** What the API user needs with a new secret: where to get tokens, and from which server. */
export interface WhereToUse {
  authorizationServerId: string;
  tokenUrl: string;
  defaultTokenUrl?: string;
  baseUrl?: string;
}
export type IssuedCredential = WhereToUse & { clientId: string; clientSecret: string; email: string; createdAt: string };
export interface RotatedCredential {
  clientId: string;
  clientSecret: string;
  email: string;
  rotatedAt: string;
  previousSecretExpiresAt: string;
}
/** What kind of research a test is. */
export const PRODUCT_TYPES = ['SURVEY', 'LIVE_CONVERSATION', 'NON_THINK_OUT_LOUD', 'THINK_OUT_LOUD'] as const;
export type ProductType = (typeof PRODUCT_TYPES)[number];

/** A task of a test plan, as far as the console reads it (how to show its answers). */
export interface PlanTask {
  id?: string;
  text: string;
  taskType: string;
  scaleMinimum?: number;
  scaleMaximum?: number;
  lowerEndpoint?: string;
  upperEndpoint?: string;
}
export interface Test {
  id: string;
  workspaceId: string;
  title: string;
  productType: string;
  createdAt: string;
  sessionCount: number;
  /** Sessions of each status (the Results API lists COMPLETE ones only). */
  sessionsByStatus?: Record<string, number>;
  plan?: { tasks: PlanTask[] } | null;
}
export interface Session {
  sessionId: string;
  testId: string;
  audienceId: string | null;
  status: string;
  startTime: string;
  finishTime: string | null;
}
export type SessionRow = Omit<Session, 'testId'> & { hasVideo: boolean; hasTranscript: boolean };
export interface SessionPage {
  sessions: SessionRow[];
  /** Sessions matching the filter, on every page. */
  totalCount: number;
}
export interface ImportReport {
  testId: string;
  inserted: number;
  updated: number;
  unchanged: number;
}
/** A refused import's problem: `detail` says how many lines were bad; `errors` lists them, `line N: problem`, one each. */
export interface RefusedImport {
  detail: string;
  errors: string[];
}
export interface SigningKey {
  kid: string;
  alg: string;
  createdAt: string;
  retiredAt: string | null;
  /** active: signs new tokens; published: retired, still in the JWKS for tokens it signed; expired. */
  state: 'active' | 'published' | 'expired';
  publishedUntil: string | null;
}
export interface AuditEvent {
  id: number;
  at: string;
  actor: string;
  action: string;
  subject: string;
  details: Record<string, unknown>;
}
export interface AuditFilter {
  since?: string;
  action?: string;
  actor?: string;
  subject?: string;
  limit?: number;
}

const enc = encodeURIComponent;

export const workspacesApi = {
  list: () => get<Workspace[]>(`${ADMIN_API}/workspaces`),
  create: (name: string) => post<Workspace>(`${ADMIN_API}/workspaces`, { name }),
  members: (id: string) => get<Member[]>(`${ADMIN_API}/workspaces/${enc(id)}/members`),
  addMember: (id: string, email: string) => post<Member>(`${ADMIN_API}/workspaces/${enc(id)}/members`, { email }),
  removeMember: (id: string, email: string) => del<void>(`${ADMIN_API}/workspaces/${enc(id)}/members/${enc(email)}`),
};

export const usersApi = {
  list: () => get<ApiUser[]>(`${ADMIN_API}/users`),
  create: (email: string) => post<ApiUser>(`${ADMIN_API}/users`, { email }),
  setStatus: (email: string, status: 'active' | 'disabled') => post<ApiUser>(`${ADMIN_API}/users/${enc(email)}/${status === 'active' ? 'enable' : 'disable'}`),
  /** A one-time link with which the user chooses a password (and can then sign in and approve apps). */
  invite: (email: string) => post<UserSetupLink>(`${ADMIN_API}/users/invitations`, { email }),
  /** Sets the password directly (the user is signed out of every browser). */
  setPassword: (email: string, password: string) => put<ApiUser>(`${ADMIN_API}/users/${enc(email)}/password`, { password }),
  approvals: (email: string) => get<Approval[]>(`${ADMIN_API}/users/${enc(email)}/approvals`),
  /** Takes the user's approval of an app back: the app's tokens for the user stop working. */
  revokeApproval: (email: string, clientId: string) =>
    post<{ email: string; clientId: string; revokedGrants: number }>(`${ADMIN_API}/users/${enc(email)}/approvals/${enc(clientId)}/revoke`),
};

/** An app the user approved and has not revoked. */
export interface Approval {
  clientId: string;
  name: string;
  scopes: string[];
  approvedAt: string;
  lastUsedAt: string | null;
}

export interface UserSetupLink {
  user: ApiUser;
  created: boolean;
  setupLink: string;
  expiresAt: string;
}

export const credentialsApi = {
  list: (email?: string) => get<Credential[]>(`${ADMIN_API}/credentials${query({ email })}`),
  issue: (email: string) => post<IssuedCredential>(`${ADMIN_API}/credentials`, { email }),
  rotate: (clientId: string) => post<RotatedCredential>(`${ADMIN_API}/credentials/${enc(clientId)}/rotate`),
  retirePrevious: (clientId: string) => post<Credential & { retired: number }>(`${ADMIN_API}/credentials/${enc(clientId)}/retire-previous`),
  revoke: (clientId: string) => post<Credential & { alreadyRevoked: boolean }>(`${ADMIN_API}/credentials/${enc(clientId)}/revoke`),
  publicEndpoints: () => get<WhereToUse>(`${ADMIN_API}/public-endpoints`),
};

export const testsApi = {
  list: (workspaceId: string) => get<Test[]>(`${ADMIN_API}/workspaces/${enc(workspaceId)}/tests`),
  create: (workspaceId: string, body: { title: string; productType: ProductType }) => post<Test>(`${ADMIN_API}/workspaces/${enc(workspaceId)}/tests`, body),
  get: (id: string) => get<Test>(`${ADMIN_API}/tests/${enc(id)}`),
  sessions: (id: string, params: { status?: string; limit: number; offset: number }) =>
    get<SessionPage>(`${ADMIN_API}/tests/${enc(id)}/sessions${query(params)}`),
  importUrl: (id: string) => `${ADMIN_API}/tests/${enc(id)}/sessions/import`,
};

export const keysApi = {
  list: () => get<SigningKey[]>(`${ADMIN_API}/keys`),
  rotate: () => post<SigningKey & { previous: SigningKey | null }>(`${ADMIN_API}/keys/rotate`),
};

export const auditApi = {
  list: (filter: AuditFilter) => get<AuditEvent[]>(`${ADMIN_API}/audit${query({ ...filter })}`),
};

export type ListedAdmin = AdminView & { workspaces: string[] };
export type AdminSetupLink = AdminView & { setupLink: string; setupLinkExpiresAt: string };

export const adminsApi = {
  list: () => get<ListedAdmin[]>(`${ADMIN_API}/admins`),
  create: (email: string, role: AdminRole) => post<AdminSetupLink>(`${ADMIN_API}/admins`, { email, role }),
  newSetupLink: (adminId: string) => post<AdminSetupLink>(`${ADMIN_API}/admins/${enc(adminId)}/setup-link`),
  assign: (adminId: string, workspaceId: string) => put<ListedAdmin>(`${ADMIN_API}/admins/${enc(adminId)}/workspaces/${enc(workspaceId)}`, {}),
  unassign: (adminId: string, workspaceId: string) => del<ListedAdmin>(`${ADMIN_API}/admins/${enc(adminId)}/workspaces/${enc(workspaceId)}`),
};

/** A task of the session's test plan with this session's response (the v3 view). */
export interface SessionTask {
  uuid: string;
  text: string;
  type: string;
  response: { startTimeMs: number | null; endTimeMs: number | null; skipped: boolean; answer: Record<string, unknown> | null } | null;
}
export interface SessionTaskGroup {
  uuid: string;
  type: string;
  response: { score: number } | { sequence: string } | null;
}
export type ClipStatus = 'GENERATING' | 'GENERATED' | 'ERROR';
export interface Clip {
  clipUuid: string;
  sessionId: string;
  testId: string;
  name: string;
  description: string | null;
  startMs: number;
  endMs: number;
  status: ClipStatus;
  lastError: string | null;
  createdAt: string;
}
export interface SessionOverview {
  session: Session;
  details: {
    testPlanId: string | null;
    sessionParticipant: { participantId: string; demographicsInfo: { label: string; value: string }[] } | null;
    taskGroups: SessionTaskGroup[];
    tasks: SessionTask[];
  };
  hasTranscript: boolean;
  video: { durationMs: number; width: number; height: number; hasAudio: boolean; hasPoster: boolean } | null;
  clips: Clip[];
}
/** A cue as the API gives it: its text as written in the file, voice spans (`<v Name>`) and all. */
export interface TranscriptCue {
  startMs: number;
  endMs: number;
  text: string;
}
/** A page of a transcript's cues (the first, as the console asks): cueCount tells whether there are more. */
export interface Transcript {
  sessionId: string;
  cueCount: number;
  offset: number;
  cues: TranscriptCue[];
}
export interface VideoLink {
  videoUrl: string;
  posterUrl: string | null;
  contentType: string;
  expiresAt: string;
}
export interface HighlightReel {
  reelId: string;
  testId: string;
  /** What the Legacy v1 highlightreel operation finds it by. */
  token: string;
  name: string;
  clipIds: string[];
  durationMs: number;
  status: ClipStatus;
  lastError: string | null;
  createdAt: string;
}

export const sessionsApi = {
  get: (testId: string, sessionId: string) => get<SessionOverview>(`${ADMIN_API}/tests/${enc(testId)}/sessions/${enc(sessionId)}`),
  transcript: (testId: string, sessionId: string) => get<Transcript>(`${ADMIN_API}/tests/${enc(testId)}/sessions/${enc(sessionId)}/transcript`),
  videoLink: (testId: string, sessionId: string) => get<VideoLink>(`${ADMIN_API}/tests/${enc(testId)}/sessions/${enc(sessionId)}/video-link`),
  clips: (sessionId: string) => get<Clip[]>(`${ADMIN_API}/sessions/${enc(sessionId)}/clips`),
  createClip: (sessionId: string, body: { startMs: number; endMs: number; name: string; description?: string }) =>
    post<Clip>(`${ADMIN_API}/sessions/${enc(sessionId)}/clips`, body),
  retryClip: (clipId: string) => post<Clip>(`${ADMIN_API}/clips/${enc(clipId)}/retry`),
};

export const reelsApi = {
  clipsOfTest: (testId: string) => get<Clip[]>(`${ADMIN_API}/tests/${enc(testId)}/clips`),
  list: (testId: string) => get<HighlightReel[]>(`${ADMIN_API}/tests/${enc(testId)}/reels`),
  create: (testId: string, body: { name: string; clipIds: string[] }) => post<HighlightReel>(`${ADMIN_API}/tests/${enc(testId)}/reels`, body),
  retry: (reelId: string) => post<HighlightReel>(`${ADMIN_API}/reels/${enc(reelId)}/retry`),
};

/** A partner app that users may authorize (issue 34). */
export interface PartnerApp {
  clientId: string;
  name: string;
  clientType: 'confidential' | 'public';
  origin: 'registered' | 'dynamic' | 'metadata';
  redirectUris: string[];
  scopes: string[];
  status: 'active' | 'revoked';
  createdAt: string;
  revokedAt: string | null;
}

export const appsApi = {
  list: () => get<PartnerApp[]>(`${ADMIN_API}/apps`),
  register: (input: { name: string; redirectUris: string[]; scopes: string[]; clientType: PartnerApp['clientType'] }) =>
    post<{ app: PartnerApp; clientSecret: string | null }>(`${ADMIN_API}/apps`, input),
  revoke: (clientId: string) => post<PartnerApp>(`${ADMIN_API}/apps/${enc(clientId)}/revoke`),
};

/** An API user's webhook subscription as operators see it (issue 35; never its secret). */
export interface WebhookSubscription {
  id: string;
  url: string;
  description: string | null;
  events: string[];
  testId: string | null;
  workspaceId: string | null;
  status: 'enabled' | 'disabled';
  disabledAt: string | null;
  disabledReason: string | null;
  failingSince: string | null;
  createdAt: string;
  updatedAt: string;
  ownerEmail: string | null;
  clientId: string;
}

export interface WebhookDelivery {
  eventId: string;
  type: string;
  status: string;
  attempts: number;
  nextAttemptAt: string | null;
  responseCode: number | null;
  durationMs: number | null;
  error: string | null;
  createdAt: string;
  updatedAt: string;
}

export const webhooksApi = {
  list: (user?: string) => get<WebhookSubscription[]>(`${ADMIN_API}/webhooks${query({ user })}`),
  show: (id: string) => get<WebhookSubscription>(`${ADMIN_API}/webhooks/${enc(id)}`),
  deliveries: (id: string, before?: string) => get<{ deliveries: WebhookDelivery[]; next: string | null }>(`${ADMIN_API}/webhooks/${enc(id)}/deliveries${query({ before })}`),
  setDisabled: (id: string, disabled: boolean) => post<WebhookSubscription>(`${ADMIN_API}/webhooks/${enc(id)}/${disabled ? 'disable' : 'enable'}`),
  delete: (id: string) => del<{ deleted: string }>(`${ADMIN_API}/webhooks/${enc(id)}`),
};
