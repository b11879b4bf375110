// Exposing the local receiver at a public URL: ngrok (library) or any tunnel program (command).
export { ExposureController, type ExposeRequest, type ExposureStatus } from './controller';
export type { NgrokLoader } from './ngrok';
export { hookUrlAt } from './public-url';
export { ngrokAuthtokenSchema, saveNgrokAuthtoken, readNgrokAuthtoken, ngrokAuthtokenHint, deleteNgrokAuthtoken } from './authtoken';
