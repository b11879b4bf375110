// Exposing the local receiver at a public URL: ngrok (library) or any tunnel program (command).
export { ExposureController, type ExposeRequest, type ExposureStatus } from './controller';
export type { NgrokLoader } from './ngrok';
export {
  ngrokAuthtokenSchema,
  saveNgrokAuthtoken,
  readNgrokAuthtoken,
  ngrokAuthtokenHint,
  deleteNgrokAuthtoken,
} from './authtoken';
export { teamSecrets } from './env';
