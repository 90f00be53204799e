import { readFileSync } from 'node:fs';

/** A file of the repository (`README.md`, `docs/API.md`), read from the repository's root. */
export const readRepoFile = (path: string): string => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

const FENCE = /^\s*(?:```|~~~)(\S*)/;

/** A fenced code block: its language, its text, and the fenced block right after it, if only blank lines part them. */
export interface FencedBlock {
  language: string;
  code: string;
  /** What a command block shows its command answers: the block that follows it directly. */
  next?: FencedBlock;
}

/** Every fenced code block of a markdown text, in order. */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  let open: { language: string; lines: string[]; adjacent: boolean } | undefined;
  let onlyBlanksSinceLastBlock = false;
  for (const line of markdown.split('\n')) {
    const fence = FENCE.exec(line);
    if (open && fence) {
      const block: FencedBlock = { language: open.language, code: open.lines.join('\n') };
      if (open.adjacent) blocks.at(-1)!.next = block;
      blocks.push(block);
      open = undefined;
      onlyBlanksSinceLastBlock = true;
    } else if (open) {
      open.lines.push(line);
    } else if (fence) {
      open = { language: fence[1]!, lines: [], adjacent: onlyBlanksSinceLastBlock };
    } else if (line.trim() !== '') {
      onlyBlanksSinceLastBlock = false;
    }
  }
  return blocks;
}

/** The lines of a markdown text outside fenced code blocks (code never holds a link or a heading). */
export function proseLines(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').filter((line) => {
    if (FENCE.test(line)) fenced = !fenced;
    else return !fenced;
    return false;
  });
}

/** GitHub's anchors for the headings of a markdown text: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const line of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const text = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '');
    const base = text.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    let anchor = base;
    for (let n = 1; anchors.has(anchor); n++) anchor = `${base}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}

/** The relative targets of a markdown text's inline links and images, outside code. */
export function relativeLinks(markdown: string): string[] {
  const links: string[] = [];
  for (const line of proseLines(markdown)) {
    const withoutCode = line.replace(/`[^`]*`/g, '``');
    for (const [, target] of withoutCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target!)) links.push(target!);
    }
  }
  return links;
}
