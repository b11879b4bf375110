// The pairing QR in a terminal: the service sends a PNG data URL, decoded here (pngjs + jsqr) to
// the text it carries and re-render that text with terminal blocks (qrcode).
import jsqrImport from 'jsqr';
import { PNG } from 'pngjs';
import QRCode from 'qrcode';

type JsQR = (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null;

// jsqr is a UMD bundle: depending on the loader the function is the default export or its .default.
const jsQR: JsQR = (
  typeof jsqrImport === 'function' ? jsqrImport : (jsqrImport as unknown as { default: JsQR }).default
) as JsQR;

const DATA_URL = /^data:image\/png;base64,([A-Za-z0-9+/=\s]+)$/;

/** The PNG bytes of a `data:image/png;base64,…` URL, or null when it is not one. */
export function pngFromDataUrl(dataUrl: string): Buffer | null {
  const m = DATA_URL.exec(dataUrl.trim());
  if (!m) return null;
  const buf = Buffer.from(m[1]!, 'base64');
  return buf.length > 8 ? buf : null;
}

/** The text a QR code PNG carries, or null when it cannot be read. */
export function decodeQrPng(png: Buffer): string | null {
  try {
    const img = PNG.sync.read(png);
    const pixels = new Uint8ClampedArray(img.data.buffer, img.data.byteOffset, img.data.byteLength);
    return jsQR(pixels, img.width, img.height)?.data ?? null;
  } catch {
    return null;
  }
}

/** Terminal rendering (half-height blocks) of a QR carrying `text`. */
export function renderQrForTerminal(text: string): Promise<string> {
  return QRCode.toString(text, { type: 'terminal', small: true });
}
