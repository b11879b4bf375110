// Saving data as a file (a Blob behind a temporary object URL) and copying text to the clipboard.
function saveBlob(filename: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function downloadText(filename: string, content: string, type = 'application/json'): void {
  saveBlob(filename, new Blob([content], { type }));
}

/** Saves base64 bytes (e.g. a delivery's media from tunnel.media). */
export function downloadBase64(filename: string, dataBase64: string, type: string): void {
  const bin = atob(dataBase64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  saveBlob(filename, new Blob([bytes], { type }));
}

export async function copyText(text: string): Promise<boolean> {
  try {
    if (!navigator.clipboard) return false;
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}
