// QR images: one from the service (a PNG data URL, nothing else is loaded) and one drawn here from
// text with the qrcode package (e.g. https://wa.me/<phone>). The package is loaded on first use
// (its own chunk); until the image is drawn an empty frame of the same size holds its place.
import { useEffect, useState } from 'react';

const PNG_DATA_URL = /^data:image\/png;base64,[A-Za-z0-9+/=]+$/;

function isPngDataUrl(s: string): boolean {
  return PNG_DATA_URL.test(s);
}

export function QrImage({ src, alt, size = 280 }: { src: string; alt: string; size?: number }) {
  if (!isPngDataUrl(src))
    return <p className="error">The service sent a QR code that is not a PNG image; it is not shown.</p>;
  return <img className="qr" src={src} alt={alt} width={size} height={size} />;
}

async function drawQr(text: string, size: number): Promise<string> {
  const { default: QRCode } = await import('qrcode');
  return QRCode.toDataURL(text, { margin: 1, width: size, errorCorrectionLevel: 'M' });
}

export function QrFromText({ text, alt, size = 200 }: { text: string; alt: string; size?: number }) {
  // What was drawn, and for which text and size (a new text shows the placeholder, not the old QR).
  const [drawn, setDrawn] = useState<{ text: string; size: number; url: string | null } | null>(null);
  useEffect(() => {
    let live = true;
    drawQr(text, size)
      .then((url) => live && setDrawn({ text, size, url }))
      .catch(() => live && setDrawn({ text, size, url: null }));
    return () => {
      live = false;
    };
  }, [text, size]);
  const current = drawn && drawn.text === text && drawn.size === size ? drawn : null;
  if (current && current.url === null) return <p className="error">Could not draw the QR code.</p>;
  if (!current?.url) {
    return (
      <div className="qr" style={{ width: size, height: size }} aria-busy="true">
        <span className="sr-only">Drawing QR code…</span>
      </div>
    );
  }
  return <img className="qr" src={current.url} alt={alt} width={size} height={size} data-qr-text={text} />;
}
