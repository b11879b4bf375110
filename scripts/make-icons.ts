// Generates the tray icons (one per health state, 16 px and @2x 32 px) and the 1024 px app icon into
// build/ (electron-builder makes the .icns and .ico from it; macOS needs at least 512 px).
// Run: node --import tsx scripts/make-icons.ts   (output is committed)
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';

type RGB = [number, number, number];
const STATES: Record<string, RGB> = {
  connected: [24, 128, 56],
  reconnecting: [232, 150, 0],
  'needs-scan': [197, 34, 31],
  unreachable: [128, 28, 28],
  unknown: [128, 134, 139],
};

/** A filled disc with a soft anti-aliased edge; 'hollow' punches a centre hole (needs attention). */
function disc(size: number, [r, g, b]: RGB, hollow: boolean): Buffer {
  const png = new PNG({ width: size, height: size });
  const c = (size - 1) / 2;
  const outer = size / 2 - size / 16;
  const inner = hollow ? outer * 0.45 : -1;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const d = Math.hypot(x - c, y - c);
      const aOuter = Math.max(0, Math.min(1, outer - d + 0.5));
      const aInner = inner < 0 ? 1 : Math.max(0, Math.min(1, d - inner + 0.5));
      const i = (y * size + x) * 4;
      png.data[i] = r;
      png.data[i + 1] = g;
      png.data[i + 2] = b;
      png.data[i + 3] = Math.round(255 * aOuter * aInner);
    }
  }
  return PNG.sync.write(png);
}

const out = join(process.cwd(), 'build');
mkdirSync(join(out, 'tray'), { recursive: true });
for (const [state, rgb] of Object.entries(STATES)) {
  const hollow = state === 'needs-scan' || state === 'unknown';
  writeFileSync(join(out, 'tray', `${state}.png`), disc(16, rgb, hollow));
  writeFileSync(join(out, 'tray', `${state}@2x.png`), disc(32, rgb, hollow));
}
writeFileSync(join(out, 'icon.png'), disc(1024, [26, 115, 232], false));
console.log('icons written to', out);
