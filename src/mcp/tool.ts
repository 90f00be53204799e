import { Type, type Static, type TObject } from '@sinclair/typebox';
import type { Caller } from '../access/caller.js';
import type { McpDeps } from './mcp-deps.js';

/**
 * One MCP tool: read-only, with an input schema and an output schema (JSON Schema, from
 * TypeBox as the REST routes' are), answering `structuredContent` that matches the output
 * schema and a short text rendering of it for clients that read text only.
 */
export interface McpTool<I extends TObject = TObject, O extends TObject = TObject> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  run(caller: Caller, input: Static<I>, deps: McpDeps): Promise<Static<O>>;
  /** A few lines a person (or a model reading text only) can use; the structured answer is the whole one. */
  render(output: Static<O>): string;
}

/** Lets each tool file declare its tool with its own types, and the list hold them all. */
export const defineTool = <I extends TObject, O extends TObject>(tool: McpTool<I, O>): McpTool => tool as unknown as McpTool;

/** A tool's refusal of its input (a tool error, never a protocol error): what was wrong, in words. */
export class ToolInputError extends Error {
  override name = 'ToolInputError';
}

export const Id = (description: string) => Type.String({ minLength: 1, maxLength: 64, description });

/** The paging inputs of a listing tool. */
export const PageInput = {
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'The `nextCursor` of the previous page; omit for the first page.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'At most this many items (default 25).' })),
};

export const NextCursor = Type.Optional(
  Type.String({ description: 'Pass it as `cursor` for the next page; absent on the last page. Opaque: do not build one.' }),
);

const DEFAULT_LIMIT = 25;
const MAX_OFFSET = 1_000_000_000;

/**
 * Cursors are opaque to clients: the position they stand for, bound to the tool and the
 * listing (a test, a session) that issued them. They grant nothing (visibility is checked on
 * every call); a cursor of another tool or listing, or anything else, is refused.
 */
export function encodeCursor(tool: string, listing: string, offset: number): string {
  return Buffer.from(JSON.stringify([tool, listing, offset])).toString('base64url');
}

function decodeCursor(cursor: string, tool: string, listing: string): number {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    decoded = undefined;
  }
  if (
    !Array.isArray(decoded) ||
    decoded[0] !== tool ||
    decoded[1] !== listing ||
    !Number.isSafeInteger(decoded[2]) ||
    (decoded[2] as number) < 0 ||
    (decoded[2] as number) > MAX_OFFSET
  ) {
    throw new ToolInputError('cursor is not one this tool issued for this listing; start again without it.');
  }
  return decoded[2] as number;
}

/** The window a listing call asks for. */
export function pageWindow(tool: string, listing: string, input: { cursor?: string | undefined; limit?: number | undefined }) {
  return { offset: input.cursor === undefined ? 0 : decodeCursor(input.cursor, tool, listing), limit: input.limit ?? DEFAULT_LIMIT };
}

/** The cursor of the page after [offset, offset + limit) of `total`, if there is one. */
export function nextCursor(tool: string, listing: string, window: { offset: number; limit: number }, total: number): { nextCursor?: string } {
  const next = window.offset + window.limit;
  return next < total ? { nextCursor: encodeCursor(tool, listing, next) } : {};
}

/** One page of an array the domain returned whole (workspaces, tests, clips, reels). */
export function pageOf<T>(tool: string, listing: string, all: readonly T[], input: { cursor?: string | undefined; limit?: number | undefined }) {
  const window = pageWindow(tool, listing, input);
  return { items: all.slice(window.offset, window.offset + window.limit), total: all.length, ...nextCursor(tool, listing, window, all.length) };
}

