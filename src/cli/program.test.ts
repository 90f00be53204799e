import { describe, expect, it } from 'vitest';
import { buildProgram, nouns } from './program.js';

describe('the CLI program', () => {
  it('loads each noun under the name it registers, and only that noun', async () => {
    for (const noun of Object.keys(nouns)) {
      const program = await buildProgram(noun);
      expect(program.commands.map((c) => c.name())).toEqual([noun]);
    }
  });

  it('loads every noun for its own help and for anything that is not a noun', async () => {
    for (const first of [undefined, '--help', 'help', 'sesions']) {
      const program = await buildProgram(first);
      expect(program.commands.map((c) => c.name()).sort()).toEqual(Object.keys(nouns).sort());
    }
  });
});
