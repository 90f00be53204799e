import { isoTime } from '../iso-time.js';

export type ConflictCode = 'duplicate' | 'not_found' | 'revoked' | 'foreign_session' | 'secret_in_grace' | 'out_of_range' | 'not_failed';

/** A repository operation refused for a reason the caller can act on (not a fault). */
export class StoreConflictError extends Error {
  override name = 'StoreConflictError';
  constructor(
    readonly code: ConflictCode,
    message: string,
  ) {
    super(message);
  }
}

/** Every refusal a repository can give, worded once. */
export const conflict = {
  userExists: (email: string) => new StoreConflictError('duplicate', `a user with email ${email} already exists`),
  noUser: (email: string) => new StoreConflictError('not_found', `no user with email ${email}`),
  credentialHeld: (email: string) =>
    new StoreConflictError('duplicate', `${email} already holds an active credential; rotate or revoke it instead`),
  clientIdTaken: (clientId: string) => new StoreConflictError('duplicate', `client id ${clientId} is already in use`),
  noCredential: (clientId: string) => new StoreConflictError('not_found', `no credential with client id ${clientId}`),
  credentialRevoked: (clientId: string) => new StoreConflictError('revoked', `credential ${clientId} is revoked`),
  secretInGrace: (clientId: string, current: { createdAt: number }, previous: { createdAt: number; expiresAt: number }) =>
    new StoreConflictError(
      'secret_in_grace',
      `credential ${clientId} already has two live secrets: the current one (issued ${isoTime(current.createdAt)}) and ` +
        `the previous one (issued ${isoTime(previous.createdAt)}, promised until ${isoTime(previous.expiresAt)}). ` +
        'Rotating again would cut the previous one off early: end its grace first ' +
        `(results-api credentials retire-previous --client-id ${clientId}), or rotate with --retire-previous-now`,
    ),
  workspaceExists: (id: string) => new StoreConflictError('duplicate', `workspace ${id} already exists`),
  noWorkspace: (id: string) => new StoreConflictError('not_found', `no workspace with id ${id}`),
  alreadyMember: (email: string, workspaceId: string) =>
    new StoreConflictError('duplicate', `${email} is already a member of workspace ${workspaceId}`),
  notMember: (email: string, workspaceId: string) =>
    new StoreConflictError('not_found', `${email} is not a member of workspace ${workspaceId}`),
  testExists: (id: string) => new StoreConflictError('duplicate', `test ${id} already exists`),
  noTest: (id: string) => new StoreConflictError('not_found', `no test with id ${id}`),
  noSession: (sessionId: string) => new StoreConflictError('not_found', `no session with id ${sessionId}`),
  foreignSession: (sessionId: string) => new StoreConflictError('foreign_session', `session ${sessionId} belongs to another test`),
  noSessionInTest: (sessionId: string, testId: string) =>
    new StoreConflictError('not_found', `test ${testId} has no session ${sessionId} (import the session first)`),
  noVideo: (sessionId: string) =>
    new StoreConflictError('not_found', `session ${sessionId} has no video (import one with: results-api videos import --session ${sessionId} FILE)`),
  noClip: (clipId: string) => new StoreConflictError('not_found', `no clip with id ${clipId}`),
  noReel: (reelId: string) => new StoreConflictError('not_found', `no highlight reel with id ${reelId}`),
  noApproval: (email: string, clientId: string) =>
    new StoreConflictError('not_found', `${email} has no approval of app ${clientId} to revoke (never approved, or already revoked)`),
  noWebhook: (webhookId: string) => new StoreConflictError('not_found', `no webhook subscription with id ${webhookId}`),
  clipOfAnotherTest: (clipId: string, testId: string) =>
    new StoreConflictError('foreign_session', `clip ${clipId} is of a session of another test than ${testId}`),
  clipListedTwice: (clipId: string) => new StoreConflictError('duplicate', `clip ${clipId} is listed twice`),
  emptyClip: (startMs: number, endMs: number) =>
    new StoreConflictError('out_of_range', `a clip must end after it starts: endMs ${endMs} is not after startMs ${startMs}`),
  clipOutsideVideo: (endMs: number, durationMs: number) =>
    new StoreConflictError('out_of_range', `the clip must end within the video: --end-ms ${endMs} is past its end at ${durationMs} ms`),
  clipTooShort: (startMs: number, endMs: number, minMs: number) =>
    new StoreConflictError('out_of_range', `a clip must last at least ${minMs} ms: endMs ${endMs} is only ${endMs - startMs} ms after startMs ${startMs}`),
  clipAfterLastFrame: (startMs: number, lastFrameMs: number) =>
    new StoreConflictError(
      'out_of_range',
      `a clip must start at or before the video's last frame, at ${lastFrameMs} ms: startMs ${startMs} is after it, so the clip would have no picture`,
    ),
  clipInLastSecond: (startMs: number, latestMs: number, durationMs: number) =>
    new StoreConflictError(
      'out_of_range',
      `a clip must start at least a second before the video's end (${durationMs} ms) while the time of its last frame is not recorded: ` +
        `startMs ${startMs} is after ${latestMs} (importing the video again records it)`,
    ),
  reelPartUncut: (index: number, clipId: string, why: StoreConflictError) =>
    new StoreConflictError(why.code, `clipIds[${index}]: clip ${clipId} cannot be cut from its session's video: ${why.message}`),
  notFailed: (what: 'clip' | 'highlight reel', id: string, status: string) =>
    new StoreConflictError('not_failed', `${what} ${id} is ${status}, not ERROR: only a failed ${what} can be retried`),
};
