// The desktop app's save dialog for a message's file: the file's name suggested in Downloads; the
// chosen path, or null when cancelled.
import { describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => ({}));

import { askSavePath } from '../../../src-main/electron/save-dialog';

function parts(answer: { canceled: boolean; filePath?: string }) {
  const showSaveDialog = vi.fn(async () => answer);
  return {
    showSaveDialog,
    ask: askSavePath({
      dialog: { showSaveDialog } as never,
      app: { getPath: (name: string) => `/home/someone/${name}` } as never,
    }),
  };
}

describe('askSavePath', () => {
  it('suggests the file name in the Downloads folder and answers the chosen path', async () => {
    const p = parts({ canceled: false, filePath: '/home/someone/Desktop/report.pdf' });
    expect(await p.ask('report.pdf')).toBe('/home/someone/Desktop/report.pdf');
    expect(p.showSaveDialog).toHaveBeenCalledWith(
      expect.objectContaining({ defaultPath: '/home/someone/downloads/report.pdf' }),
    );
  });

  it('answers null when the person cancels', async () => {
    expect(await parts({ canceled: true, filePath: '' }).ask('report.pdf')).toBeNull();
  });
});
