#!/usr/bin/env node
// `channel-companion`: runs the built CLI (out/main/cli.js, from `npm run build`) when present,
// otherwise the TypeScript source through tsx. main() returns the exit code.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = join(root, 'out', 'main', 'cli.js');

let mod;
if (existsSync(built) && process.env.CHANNEL_COMPANION_FROM_SOURCE !== '1') {
  mod = await import(pathToFileURL(built).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  mod = await import(pathToFileURL(join(root, 'src-main', 'cli', 'main.ts')).href);
}

const code = await mod.main(process.argv);
process.exitCode = code;
// Let stdout drain, but do not wait on stray handles (keep-alive sockets) once the command is done.
setTimeout(() => process.exit(code), 100).unref();
