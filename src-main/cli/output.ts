// Output modes. Human (default): readable lines on stdout, notes on stderr. --json: exactly one
// JSON object per line on stdout, notes and errors as JSON lines on stderr. Nothing here ever
// receives a secret: callers pass only what may be shown.
import type { Logger } from '../app/ports';
import type { CliIO } from './io';
import { rawLines, type DescribedError } from './errors';

/**
 * A log line as a person reads it: its message, its other plain fields in brackets, then its error ("tunnel: could
 * not listen (port 47615): the port is taken by …"). The fields are what the log may hold (never a secret).
 */
function logLine(msg: string, fields?: Record<string, unknown>): string {
  if (!fields) return msg;
  const { error, ...rest } = fields;
  const plain = Object.entries(rest)
    .filter(([, v]) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
    .map(([k, v]) => `${k} ${String(v)}`);
  const why = typeof error === 'string' && error !== '' ? `: ${error}` : '';
  return `${msg}${plain.length > 0 ? ` (${plain.join(', ')})` : ''}${why}`;
}

/** The core's logger over the output: warnings and errors as warnings (with their fields), info dropped. */
export function cliLogger(out: Output): Logger {
  return {
    info: () => undefined,
    warn: (msg, fields) => out.warn(logLine(msg, fields)),
    error: (msg, fields) => out.warn(logLine(msg, fields)),
  };
}

export class Output {
  constructor(
    private readonly io: CliIO,
    readonly json: boolean,
  ) {}

  /** The command's result: `human` text in human mode, `data` as one JSON line in --json mode. */
  result(data: Record<string, unknown>, human: string | (() => string)): void {
    if (this.json) this.line(this.io.stdout, JSON.stringify(data));
    else this.line(this.io.stdout, typeof human === 'function' ? human() : human);
  }

  /** A streamed event (ready, qr, token…): a JSON line in --json mode; in human mode the given text (if any). */
  event(data: Record<string, unknown>, human?: string): void {
    if (this.json) this.line(this.io.stdout, JSON.stringify(data));
    else if (human !== undefined) this.line(this.io.stdout, human);
  }

  /** Raw text on stdout in human mode only (e.g. streamed tokens, no newline). */
  raw(text: string): void {
    if (!this.json) this.io.stdout.write(text);
  }

  /** A note for the person at the terminal; always stderr. */
  note(message: string): void {
    if (this.json) this.line(this.io.stderr, JSON.stringify({ note: message }));
    else this.line(this.io.stderr, message);
  }

  /** Raw text on stderr (a terminal QR code, a progress line). */
  stderrRaw(text: string): void {
    this.io.stderr.write(text);
  }

  warn(message: string): void {
    if (this.json) this.line(this.io.stderr, JSON.stringify({ warning: message }));
    else this.line(this.io.stderr, `warning: ${message}`);
  }

  error(err: DescribedError): void {
    if (this.json) this.line(this.io.stderr, JSON.stringify({ error: err }));
    else
      this.line(
        this.io.stderr,
        [`error: ${err.message}`, ...(err.raw ? rawLines(err.raw).map((l) => `  ${l}`) : [])].join('\n'),
      );
  }

  private line(stream: CliIO['stdout'], text: string): void {
    stream.write(text.endsWith('\n') ? text : `${text}\n`);
  }
}
