/** Every relative link of the README and docs/ leads to a file that exists, and to a heading it has. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fencedBlocks, headingAnchors, readRepoFile, relativeLinks } from '../helpers/markdown.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

describe('links between the README and docs/', () => {
  it.each(DOCS)('%s: every relative link resolves to an existing file and heading', (file) => {
    const broken: string[] = [];
    for (const link of relativeLinks(readRepoFile(file))) {
      const [path, anchor] = link.split('#') as [string, string | undefined];
      const target = path === '' ? join(ROOT, file) : join(ROOT, dirname(file), decodeURIComponent(path));
      if (!target.startsWith(ROOT) || !existsSync(target)) {
        broken.push(`${link}: no file ${relative(ROOT, target)}`);
      } else if (anchor !== undefined && !(target.endsWith('.md') && headingAnchors(readFileSync(target, 'utf8')).has(anchor))) {
        broken.push(`${link}: no heading #${anchor} in ${relative(ROOT, target)}`);
      }
    }
    expect(broken, `broken links in ${file}:\n${broken.join('\n')}`).toEqual([]);
  });

  it("the anchors are GitHub's", () => {
    expect([...headingAnchors("# Token endpoint: `POST /oauth2/<id>/v1/token`\n## Node.js versions\n## A session's video\n## Limits\n## Limits\n")]).toEqual([
      'token-endpoint-post-oauth2idv1token',
      'nodejs-versions',
      'a-sessions-video',
      'limits',
      'limits-1',
    ]);
  });

  it('links and headings are read outside code only', () => {
    const markdown = 'see [a](A.md#x) and ![i](images/i.png) `[no](code.md)` <https://x.example>\n```\n[no](fenced.md)\n# not a heading\n```\n[web](https://x.example)\n## Heading';
    expect(relativeLinks(markdown)).toEqual(['A.md#x', 'images/i.png']);
    expect([...headingAnchors(markdown)]).toEqual(['heading']);
  });

  it('a command block is followed by the output it shows, when only blank lines part them', () => {
    const [command, output, alone] = fencedBlocks('```bash\ncurl x\n```\n\n```json\n{"a":1}\n```\ntext\n```bash\nls\n```\n');
    expect(command).toEqual({ language: 'bash', code: 'curl x', next: output });
    expect(output).toEqual({ language: 'json', code: '{"a":1}' });
    expect(alone).toEqual({ language: 'bash', code: 'ls' });
  });
});
