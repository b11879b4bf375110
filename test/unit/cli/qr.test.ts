import QRCode from 'qrcode';
import { describe, expect, it } from 'vitest';
import { decodeQrPng, pngFromDataUrl, renderQrForTerminal } from '../../../src-main/cli/qr';

describe('pairing QR in the terminal', () => {
  it('decodes the text of a PNG data URL and re-renders it with terminal blocks', async () => {
    const text = '2@pairing-token-abc,XYZ==,rotation-3';
    const dataUrl = await QRCode.toDataURL(text);
    const png = pngFromDataUrl(dataUrl);
    expect(png).not.toBeNull();
    expect(decodeQrPng(png!)).toBe(text);
    const drawn = await renderQrForTerminal(text);
    expect(drawn).toMatch(/[▀▄█]/);
    expect(drawn.split('\n').length).toBeGreaterThan(10);
  });

  it('rejects what is not a PNG data URL, and an unreadable image', () => {
    expect(pngFromDataUrl('https://example.test/qr.png')).toBeNull();
    expect(pngFromDataUrl('data:image/jpeg;base64,AAAA')).toBeNull();
    expect(decodeQrPng(Buffer.from('not a png at all'))).toBeNull();
  });
});
