// Exposing the local receiver at a public URL: ngrok (library) or any tunnel program (command).
export { ExposureController, failureOf, type ExposeRequest, type ExposureFailure, type ExposureState, type ExposureStatus } from './controller';
export { ExposeError, isExposeError, type ExposeErrorCode } from './errors';
export { startCommandExposure, commandLine, PORT_PLACEHOLDER } from './command';
export { startNgrokExposure, ngrokFailure, loadNgrok, type NgrokLoader, type NgrokModule, type NgrokListener } from './ngrok';
export { findPublicUrl, isOwnMachineHost } from './public-url';
export { teamSecrets } from './env';
export { NGROK_AUTHTOKEN_ACCOUNT, ngrokAuthtokenSchema, saveNgrokAuthtoken, readNgrokAuthtoken, ngrokAuthtokenHint, deleteNgrokAuthtoken } from './authtoken';
export { DEFAULT_EXPOSE_TIMEOUT_MS, type Exposure, type ExposeKind } from './types';
