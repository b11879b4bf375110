#!/usr/bin/env node
// `channel-companion`: runs the built CLI (out/main/cli.js, from `npm run build`). With
// CHANNEL_COMPANION_FROM_SOURCE=1 it runs the TypeScript source through tsx instead (a development
// dependency, so only in a checkout). main() returns the exit code.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = join(root, 'out', 'main', 'cli.js');
const source = join(root, 'src-main', 'cli', 'main.ts');

function fail(message) {
  console.error(`channel-companion: ${message}`);
  process.exit(1);
}

async function load() {
  if (process.env.CHANNEL_COMPANION_FROM_SOURCE === '1') {
    if (!existsSync(source))
      fail(`CHANNEL_COMPANION_FROM_SOURCE=1, but there is no source here (${source}); unset it to run the built CLI.`);
    let register;
    try {
      ({ register } = await import('tsx/esm/api'));
    } catch {
      fail(
        'CHANNEL_COMPANION_FROM_SOURCE=1 needs tsx, a development dependency: run npm install (or unset it to run the built CLI).',
      );
    }
    register();
    return import(pathToFileURL(source).href);
  }
  if (!existsSync(built)) fail(`the CLI is not built (no ${built}): run npm run build`);
  return import(pathToFileURL(built).href);
}

const mod = await load();
const code = await mod.main(process.argv);
process.exitCode = code;
// Let stdout drain, but do not wait on stray handles (keep-alive sockets) once the command is done.
setTimeout(() => process.exit(code), 100).unref();
