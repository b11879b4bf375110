// The CLI's exit codes are the app's (app/exit-codes.ts), where the one error mapper turns a failure into one.
export { EXIT } from '../app/exit-codes';
