import { apiErrors, type ApiProblem } from '../errors.js';
import type { Clip } from '../store/clips.js';
import type { HighlightReel } from '../store/reels.js';
import type { SearchKind } from '../store/search.js';
import type { Store } from '../store/open-store.js';
import type { Session, Test, Workspace } from '../store/store.js';
import type { CueRange, StoredTranscript } from '../store/transcripts.js';
import { uuidKey } from '../store/uuid.js';
import type { Video } from '../store/videos.js';
import type { WebhookSubscription } from '../store/webhooks.js';
import type { AccessReads } from './access-cache.js';
import type { Caller, ResourceFamily } from './caller.js';
import { SCOPE_OF_FAMILY } from './scope-families.js';

/**
 * What a caller can be refused, each with its one public answer: a resource that does not
 * exist and one outside the caller's workspaces get the same status, body and headers, so
 * existence never leaks. `study` is the Legacy (v1) family's word for a test.
 */
const NOT_FOUND = {
  workspace: apiErrors.workspaceNotFound,
  test: apiErrors.testNotFound,
  study: apiErrors.studyNotFound,
  session: apiErrors.sessionNotFound,
  transcript: apiErrors.transcriptNotFound,
  video: apiErrors.videoNotFound,
  clip: apiErrors.clipNotFound,
  reel: apiErrors.reelNotFound,
  webhook: apiErrors.webhookNotFound,
} satisfies Record<string, (internal: string) => ApiProblem>;

export type ResourceKind = keyof typeof NOT_FOUND;

/** A session the caller may see, with its test. */
export interface VisibleSession {
  session: Session;
  test: Test;
}

/**
 * What a full-text search may read: the tests, and of their texts the kinds the token's families
 * grant (answers are part of a session's details, transcripts of its video), as REST serves them.
 */
export interface SearchScope {
  testIds: string[];
  kinds: SearchKind[];
}

/** Which family grants reading each kind of searchable text (the REST endpoints that serve it ask for the same). */
const FAMILY_OF_SEARCH_KIND = { answer: 'sessions', transcript: 'videos' } as const satisfies Record<SearchKind, ResourceFamily>;

export type AccessStore = Pick<Store, 'directory' | 'sessionDetails' | 'transcripts' | 'videos' | 'clips' | 'reels' | 'webhooks'>;

/**
 * Who may see what: the one place that answers "may this caller see this test, session,
 * its details, transcript, video, clip, highlight reel or workspace?" for the REST API, the
 * Legacy (v1) family and whatever else serves a caller (MCP tools, webhook deliveries). Each
 * resolver takes the id as the caller sent it (any case), returns the resource, or throws the
 * one not-found error of its kind; nothing outside src/store/ asks the store for a resource a
 * caller names but through here. What a resource returned here lists (a test's sessions and
 * reels, a video's clips, a reel's clips) the domain reads from that resource.
 *
 * A caller sees what lies in the workspaces where its email is a member. Whether it may see a
 * test, and which test a session belongs to, are read through AccessReads (cached per process,
 * dropped on any change), so a removed member is refused on the next request and a list
 * request pays no extra read.
 */
export class ResourceAccess {
  constructor(
    private readonly reads: AccessReads,
    private readonly store: AccessStore,
  ) {}

  /** A test, for reading `family` of it (its plan and scores, its sessions, its reels). */
  test(caller: Caller, testId: string, family: ResourceFamily): Promise<Test> {
    return this.visibleTest(caller, 'test', uuidKey(testId), family);
  }

  /** The same as test() in the Legacy (v1) family's words ("Study not found"). */
  study(caller: Caller, studyUuid: string, family: ResourceFamily): Promise<Test> {
    return this.visibleTest(caller, 'study', uuidKey(studyUuid), family);
  }

  /** A session of any status, with its test. */
  session(caller: Caller, sessionId: string): Promise<VisibleSession> {
    return this.visibleSession(caller, 'session', uuidKey(sessionId), 'sessions');
  }

  /**
   * The details of a session the caller may see (session() decides): its stored document, null
   * when none was imported. Apart, so a reader whose body is cached does not read them again.
   */
  detailsOf(visible: VisibleSession): Promise<unknown> {
    return this.store.sessionDetails.findDetails(visible.session.sessionId);
  }

  /** A session's transcript: one answer for a session missing, hidden, or without a transcript. */
  async transcript(caller: Caller, sessionId: string): Promise<StoredTranscript> {
    const id = uuidKey(sessionId);
    const found = await this.inVisibleTest(caller, 'transcript', 'videos', `transcript of session ${id}`, () => this.store.transcripts.findTranscript(id));
    return found.resource;
  }

  /**
   * A stretch of a session's transcript cues, as stored at import (never the whole text): one
   * answer ("Transcript not found") for a session missing, hidden, or without a transcript.
   */
  async transcriptCues(caller: Caller, sessionId: string, offset: number, limit: number): Promise<CueRange> {
    const visible = await this.visibleSession(caller, 'transcript', uuidKey(sessionId), 'videos');
    const range = await this.store.transcripts.readCues(visible.session.sessionId, offset, limit);
    if (!range) throw this.notFound(caller, 'transcript', `transcript of session ${visible.session.sessionId}`, 'has none');
    return range;
  }

  /** A session's video: one answer ("Video not found") for a session missing, hidden, or without a video. */
  async video(caller: Caller, sessionId: string): Promise<Video> {
    const visible = await this.visibleSession(caller, 'video', uuidKey(sessionId), 'videos');
    return this.videoOf(caller, visible);
  }

  /**
   * The video of a session the caller may see, for reading `family` of it (its clips): a
   * session missing or hidden is "Session not found", one without a video "Video not found".
   */
  async videoOfSession(caller: Caller, sessionId: string, family: ResourceFamily): Promise<Video> {
    return this.videoOf(caller, await this.visibleSession(caller, 'session', uuidKey(sessionId), family));
  }

  /** A clip of a session's video, as videoOfSession() finds the video; "Clip not found" for one of another session. */
  async clipOfSession(caller: Caller, sessionId: string, clipId: string): Promise<Clip> {
    const video = await this.videoOfSession(caller, sessionId, 'clips');
    const id = uuidKey(clipId);
    const clip = await this.store.clips.findClip(id);
    if (!clip || clip.sessionId !== video.sessionId) throw this.notFound(caller, 'clip', `clip ${id} of session ${video.sessionId}`);
    return clip;
  }

  /** A clip by its id alone, with its test. */
  async clip(caller: Caller, clipId: string): Promise<{ clip: Clip; test: Test }> {
    const id = uuidKey(clipId);
    const { resource: clip, test } = await this.inVisibleTest(caller, 'clip', 'clips', `clip ${id}`, () => this.store.clips.findClip(id));
    return { clip, test };
  }

  /** A highlight reel of a test: one answer for a test missing or hidden and a reel missing or of another test. */
  async reel(caller: Caller, testId: string, reelId: string): Promise<HighlightReel> {
    const [testKey, id] = [uuidKey(testId), uuidKey(reelId)];
    this.authorize(caller, 'clips');
    const test = await this.reads.findVisibleTest(testKey, caller.email);
    const reel = test && (await this.store.reels.findReel(id));
    if (!reel || reel.testId !== testKey) throw this.notFound(caller, 'reel', `reel ${id} of test ${testKey}`);
    return reel;
  }

  /** A highlight reel by the Legacy (v1) family's token (not an id: matched as sent, never logged whole). */
  async reelByToken(caller: Caller, token: string): Promise<HighlightReel> {
    const found = await this.inVisibleTest(caller, 'reel', 'clips', `reel with token ${token.slice(0, 4)}…`, () => this.store.reels.findReelByToken(token));
    return found.resource;
  }

  /** A workspace where the caller is a member. */
  async workspace(caller: Caller, workspaceId: string): Promise<Workspace> {
    const id = uuidKey(workspaceId);
    this.authorize(caller, 'studies');
    const workspace = await this.store.directory.getWorkspace(id);
    if (!workspace || !(await this.store.directory.isMember(id, caller.email))) throw this.notFound(caller, 'workspace', `workspace ${id}`);
    return workspace;
  }

  /**
   * A webhook subscription of the caller's own user (whichever of the user's credentials made
   * it): one answer for a subscription missing and another user's.
   */
  async webhook(caller: Caller, webhookId: string): Promise<WebhookSubscription> {
    const id = uuidKey(webhookId);
    const subscription = await this.store.webhooks.get(id);
    if (!subscription || subscription.userId !== caller.userId) throw this.notFound(caller, 'webhook', `webhook ${id}`);
    return subscription;
  }

  /** The workspaces where the caller is a member, oldest first. */
  workspaces(caller: Caller): Promise<Workspace[]> {
    this.authorize(caller, 'studies');
    return this.store.directory.listWorkspacesForMember(caller.email);
  }

  /** The tests of a workspace where the caller is a member, oldest first. */
  async testsOfWorkspace(caller: Caller, workspaceId: string): Promise<Test[]> {
    const workspace = await this.workspace(caller, workspaceId);
    return this.store.directory.listTests(workspace.id);
  }

  /** The tests of every workspace where the caller is a member, by workspace, each oldest first. */
  async tests(caller: Caller): Promise<Test[]> {
    this.authorize(caller, 'studies');
    return this.memberTests(caller);
  }

  /**
   * What a search over every test the caller may see (or over one, `testId`) reads: the tests
   * of the caller's workspaces, and of their texts only the kinds its token grants, so a token
   * narrowed to `sessions:read` finds answers and never transcripts, and one narrowed to
   * `videos:read` the reverse: never a hit that the REST API would refuse to serve it.
   */
  async searchScope(caller: Caller, testId?: string): Promise<SearchScope> {
    const kinds = (Object.keys(FAMILY_OF_SEARCH_KIND) as SearchKind[]).filter((kind) => !caller.families || caller.families.has(FAMILY_OF_SEARCH_KIND[kind]));
    // Neither family granted: refused before anything is read (naming sessions:read; videos:read would do as well).
    if (kinds.length === 0) this.authorize(caller, 'sessions');
    if (testId === undefined) return { testIds: [...new Set((await this.memberTests(caller)).map((t) => t.id))], kinds };
    const id = uuidKey(testId);
    const test = await this.reads.findVisibleTest(id, caller.email);
    if (!test) throw this.notFound(caller, 'test', `test ${id}`);
    return { testIds: [test.id], kinds };
  }

  private async memberTests(caller: Caller): Promise<Test[]> {
    const workspaces = await this.store.directory.listWorkspacesForMember(caller.email);
    return (await Promise.all(workspaces.map((w) => this.store.directory.listTests(w.id)))).flat();
  }

  private async visibleTest(caller: Caller, kind: ResourceKind, id: string, family: ResourceFamily): Promise<Test> {
    this.authorize(caller, family);
    const test = await this.reads.findVisibleTest(id, caller.email);
    if (!test) throw this.notFound(caller, kind, `test ${id}`);
    return test;
  }

  private async visibleSession(caller: Caller, kind: ResourceKind, id: string, family: ResourceFamily): Promise<VisibleSession> {
    const { resource: session, test } = await this.inVisibleTest(caller, kind, family, `session ${id}`, () => this.reads.findSession(id));
    return { session, test };
  }

  /** What `find` finds, if it lies in a test the caller may see; otherwise the kind's one not-found error. */
  private async inVisibleTest<R extends { testId: string }>(
    caller: Caller,
    kind: ResourceKind,
    family: ResourceFamily,
    what: string,
    find: () => Promise<R | null>,
  ): Promise<{ resource: R; test: Test }> {
    this.authorize(caller, family);
    const resource = await find();
    const test = resource && (await this.reads.findVisibleTest(resource.testId, caller.email));
    if (!resource || !test) throw this.notFound(caller, kind, what);
    return { resource, test };
  }

  private async videoOf(caller: Caller, { session }: VisibleSession): Promise<Video> {
    const video = await this.store.videos.findVideo(session.sessionId);
    if (!video) throw this.notFound(caller, 'video', `video of session ${session.sessionId}`, 'has none');
    return video;
  }

  /**
   * Issue 34's seam: a token narrowed to some families is refused the others (RFC 6750 §3.1),
   * before anything is read, so the refusal says nothing about the resource.
   */
  private authorize(caller: Caller, family: ResourceFamily): void {
    if (caller.families && !caller.families.has(family)) throw apiErrors.familyNotGranted(SCOPE_OF_FAMILY[family]);
  }

  private notFound(caller: Caller, kind: ResourceKind, what: string, why = `missing or outside the workspaces of ${caller.clientId}`): ApiProblem {
    return NOT_FOUND[kind](`${what} ${why}`);
  }
}
