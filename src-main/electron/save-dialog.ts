// The desktop app's save dialog for a message's file (messages.saveMedia): suggests the file's name
// in the Downloads folder; null when the person cancelled.
import type * as Electron from 'electron';
import { join } from 'node:path';

type SaveDialogParts = {
  dialog: Pick<typeof Electron.dialog, 'showSaveDialog'>;
  app: Pick<typeof Electron.app, 'getPath'>;
};

export function askSavePath({ dialog, app }: SaveDialogParts): (filename: string) => Promise<string | null> {
  return async (filename) => {
    const r = await dialog.showSaveDialog({
      title: 'Save the file',
      defaultPath: join(app.getPath('downloads'), filename),
    });
    return r.canceled || !r.filePath ? null : r.filePath;
  };
}
