#!/usr/bin/env node
// `npm start`: the Electron app when an Electron binary is installed; otherwise one clear line
// and the browser host (`channel-companion serve --emulator`), which prints the URL to open.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');

function electronBinary() {
  const dir = join(root, 'node_modules', 'electron');
  const pathFile = join(dir, 'path.txt');
  if (!existsSync(pathFile)) return null;
  const bin = join(dir, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(bin) ? bin : null;
}

function run(cmd, args) {
  const child = spawn(cmd, args, { cwd: root, stdio: 'inherit' });
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

const extra = process.argv.slice(2);
const bin = electronBinary();
if (bin) {
  if (!existsSync(join(root, 'out', 'main', 'index.js'))) {
    console.error('start: building the app first (npm run build)…');
  }
  run('npx', ['electron-vite', 'preview', ...extra]);
} else {
  console.error(
    'start: the Electron binary is not installed on this machine, so the desktop app cannot open here; starting the browser host instead (`channel-companion serve --emulator`).',
  );
  run(process.execPath, [join(root, 'bin', 'channel-companion.mjs'), 'serve', '--emulator', ...extra]);
}
