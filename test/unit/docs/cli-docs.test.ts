// docs/cli.md is generated from the command definitions; this fails when a command, a flag or a
// description changed without the file being regenerated.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLI_DOCS_PATH, cliProgram, REGENERATE, renderCliDocs } from '../../../scripts/cli-docs';

describe('docs/cli.md', () => {
  it('is what the command definitions generate', () => {
    const fresh = renderCliDocs();
    const current = readFileSync(CLI_DOCS_PATH, 'utf8');
    if (current === fresh) return;
    const a = current.split('\n');
    const b = fresh.split('\n');
    const line = b.findIndex((l, i) => l !== a[i]);
    const where =
      line === -1 ? `it has ${a.length - b.length} lines too many` : `line ${line + 1} should read: ${b[line]}`;
    expect.fail(`docs/cli.md is stale (${where}): run \`${REGENERATE}\` and commit the result`);
  });

  it('names every command and subcommand with every one of its flags', () => {
    const text = renderCliDocs();
    const program = cliProgram();
    const missing: string[] = [];
    for (const cmd of program.commands) {
      for (const c of [cmd, ...cmd.commands]) {
        const path = c === cmd ? cmd.name() : `${cmd.name()} ${c.name()}`;
        const section = text.split(new RegExp(`^#{2,3} ${path}$`, 'm'))[1]?.split(/^#{2,3} /m)[0];
        if (section === undefined) {
          missing.push(path);
          continue;
        }
        for (const o of c.options)
          if (!o.hidden && !section.includes(`\`${o.flags}\``)) missing.push(`${path} ${o.flags}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('keeps its lines within 120 characters, but for a single unbreakable word', () => {
    const long = renderCliDocs()
      .split('\n')
      .filter((l) => l.length > 120 && /\s\S/.test(l.trim()));
    expect(long).toEqual([]);
  });
});
