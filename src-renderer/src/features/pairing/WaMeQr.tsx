// A QR of https://wa.me/<phone> so a tester can message the linked number from a phone.
import { QrFromText } from '../../components/Qr';

/** The wa.me link of a phone number: its digits only. */
function waMeUrl(phone: string): string {
  return `https://wa.me/${phone.replace(/\D/g, '')}`;
}

export function WaMeQr({ phone }: { phone: string }) {
  const url = waMeUrl(phone);
  return (
    <div className="wame">
      <QrFromText text={url} alt={`QR code that opens a WhatsApp chat with +${phone.replace(/\D/g, '')}`} />
      <p>
        Scan with a phone camera to open a chat with this agent, or use <code>{url}</code>.
      </p>
    </div>
  );
}
