// QR images: one from the service (a PNG data URL, nothing else is loaded) and one drawn here from
// text with the qrcode package (e.g. https://wa.me/<phone>).
import { useEffect, useState } from 'react';
import QRCode from 'qrcode';

const PNG_DATA_URL = /^data:image\/png;base64,[A-Za-z0-9+/=]+$/;

export function isPngDataUrl(s: string): boolean {
  return PNG_DATA_URL.test(s);
}

export function QrImage({ src, alt, size = 280 }: { src: string; alt: string; size?: number }) {
  if (!isPngDataUrl(src)) return <p className="error">The service sent a QR code that is not a PNG image; it is not shown.</p>;
  return <img className="qr" src={src} alt={alt} width={size} height={size} />;
}

export function QrFromText({ text, alt, size = 200 }: { text: string; alt: string; size?: number }) {
  const [url, setUrl] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let live = true;
    QRCode.toDataURL(text, { margin: 1, width: size, errorCorrectionLevel: 'M' })
      .then((u) => live && setUrl(u))
      .catch(() => live && setFailed(true));
    return () => {
      live = false;
    };
  }, [text, size]);
  if (failed) return <p className="error">Could not draw the QR code.</p>;
  if (!url) return <p aria-busy="true">Drawing QR code…</p>;
  return <img className="qr" src={url} alt={alt} width={size} height={size} data-qr-text={text} />;
}
