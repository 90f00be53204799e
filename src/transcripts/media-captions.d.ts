/**
 * The part of `media-captions` (1.x) used here. Its own declarations import their siblings
 * without file extensions, which NodeNext resolution cannot follow, so its exports would
 * appear missing; this ambient module describes the same functions for the type checker.
 */
declare module 'media-captions' {
  export class ParseError extends Error {
    readonly code: number;
    readonly line: number;
  }
  export interface ParsedCaptionsResult {
    cues: { startTime: number; endTime: number; text: string }[];
    errors: ParseError[];
  }
  export function parseText(text: string, options?: { strict?: boolean; type?: 'vtt' }): Promise<ParsedCaptionsResult>;
  export function parseVTTTimestamp(timestamp: string): number | null;
}
