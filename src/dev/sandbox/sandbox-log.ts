import type { DestinationStream } from 'pino';
import pretty from 'pino-pretty';

/**
 * How the sandbox writes its logs: `pretty` (one readable line per event, on stdout) when
 * LOG_FORMAT says so or, unset, when stdout is a terminal; JSON lines otherwise. pino-pretty
 * is a development dependency: only the sandbox loads it, never the production path.
 */
export function sandboxLogFormat(logFormat: 'json' | 'pretty' | undefined, tty = Boolean(process.stdout.isTTY)): 'json' | 'pretty' {
  return logFormat ?? (tty ? 'pretty' : 'json');
}

/** One line per event: time, level, message, then the fields; colours on a terminal. */
export function prettyLogDestination(tty = Boolean(process.stdout.isTTY)): DestinationStream {
  return pretty({ colorize: tty, singleLine: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', destination: 1, sync: true });
}

/**
 * The banner, framed so it stands out from the log lines above it (bold on a terminal). In
 * JSON mode it goes to stderr, so stdout stays one JSON object per line.
 */
export function printBanner(lines: readonly string[], format: 'json' | 'pretty', tty = Boolean(process.stdout.isTTY)): void {
  const width = Math.min(Math.max(...lines.map((l) => l.length)), 100);
  const rule = '═'.repeat(width);
  const body = tty ? lines.map((l) => `\x1b[1m${l}\x1b[22m`) : lines;
  const text = `\n${rule}\n${body.join('\n')}\n${rule}\n\n`;
  (format === 'pretty' ? process.stdout : process.stderr).write(text);
}
