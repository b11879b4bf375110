// The root of the companion's own errors. Every error class of the core, the app and the shells extends
// it, so one mapper (app/errors.ts) tells them from anything else: ours carry plain, secret-free words
// and a code, and reach people as they are; a foreign error (a bug, a library's) is said generically.
export class CompanionError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}
