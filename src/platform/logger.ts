import pino, { type DestinationStream, type Logger } from 'pino';

/** Header and field paths that carry credentials in any request or config object. */
const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-callback-signature"]',
  'headers.authorization',
  'authorization',
  'apiKey',
  'password',
  'secret',
];

/** Longest caller-supplied text a log line repeats: a rejection names the problem, not the payload. */
export const MAX_LOGGED_DETAIL = 300;

/** Caller-supplied text cut to a bounded length for logs, saying how much was left out. */
export function boundedForLog(text: string | undefined, max = MAX_LOGGED_DETAIL): string | undefined {
  if (text === undefined || text.length <= max) return text;
  return `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/**
 * The service logger. Besides path redaction, every configured secret value is replaced
 * wherever it appears in a log line (an RPC URL with a key inside an error message, say),
 * so a secret reaches no log even through text we did not foresee.
 */
export function createLogger(level: string, secrets: readonly string[] = [], destination?: DestinationStream): Logger {
  const censor = [...new Set(secrets)].filter((s) => s.length >= 6).sort((a, b) => b.length - a.length);
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
      ...(censor.length ? { hooks: { streamWrite: (line: string) => censor.reduce((out, secret) => out.split(secret).join('[REDACTED]'), line) } } : {}),
    },
    destination as DestinationStream,
  );
}
