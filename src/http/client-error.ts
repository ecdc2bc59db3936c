import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { AppError, BadRequestError } from '../platform/errors.js';

/**
 * Requests Node's HTTP parser refuses before Express sees them (headers or URL over the
 * size limit, malformed request lines) would get Node's bare text answer; they get the
 * AppError shape like every other refusal.
 */
export function answerClientErrorsAsJson(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable || err.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const error =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? new AppError(431, 'ERR_HEADERS_TOO_LARGE', 'Request headers too large', 'The request line and headers exceed the server limit.', false)
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? new AppError(
              408,
              'ERR_REQUEST_TIMEOUT',
              'Request timeout',
              'The request did not arrive within the time the server allows (HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS).',
              false,
            )
          : new BadRequestError('The request is not valid HTTP.', 'ERR_MALFORMED_REQUEST');
    const body = JSON.stringify(error.toBody());
    socket.end(
      `HTTP/1.1 ${error.status} ${error.title}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
