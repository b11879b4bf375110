// Making a local receiver reachable from the internet (ngrok or a tunnel program): the controller, the ngrok
// authtoken kept in the keychain, and the saved teams' secrets a started program must not be handed.
export {
  ExposureController,
  deleteNgrokAuthtoken,
  ngrokAuthtokenHint,
  ngrokAuthtokenSchema,
  readNgrokAuthtoken,
  saveNgrokAuthtoken,
  teamSecrets,
  type ExposeRequest,
  type ExposureStatus,
} from '../core/expose';
