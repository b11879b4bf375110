// The one error the emulator raises; the HTTP layer turns it into the service's error body
// (ASSUMPTION A-ERROR-BODY: {"error":{"code":"…","message":"…"}}, or the dialect's: dialect-wire.ts).

export class EmulatorError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'EmulatorError';
  }
}

export const invalid = (message: string) => new EmulatorError(400, 'INVALID_REQUEST', message);
export const notFound = (code: string, message: string) => new EmulatorError(404, code, message);
export const conflict = (code: string, message: string) => new EmulatorError(409, code, message);
