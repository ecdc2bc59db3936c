import type { ErrorRequestHandler, RequestHandler } from 'express';

/**
 * A management-layer error, rendered as `application/problem+json`
 * `{type: '/mng/errors/<id>', title, details, status}` like the custody service does.
 */
export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly errorId: string,
    readonly title: string,
    readonly details: string,
  ) {
    super(`${title}: ${details}`);
    this.name = 'ProblemError';
  }

  toBody(): Record<string, unknown> {
    return { type: `/mng/errors/${this.errorId}`, title: this.title, details: this.details, status: this.status };
  }
}

export const badRequest = (details: string, errorId = 'bad_request') => new ProblemError(400, errorId, 'Bad request', details);
export const notFound = (details: string) => new ProblemError(404, 'not_found', 'Not found', details);

export const unknownRoute: RequestHandler = (req, _res, next) => {
  next(notFound(`No route ${req.method} ${req.path}`));
};

/** Body-parser failures are the client's fault (400/413); anything else is ours (500). */
export function problemHandler(onUnexpected: (err: unknown) => void): ErrorRequestHandler {
  return (err, _req, res, _next) => {
    const e = err as { type?: string; status?: number; message?: string };
    let problem: ProblemError;
    if (err instanceof ProblemError) problem = err;
    else if (e?.type === 'entity.parse.failed') problem = badRequest('The body is not valid JSON.', 'malformed_json');
    else if (e?.type === 'entity.too.large') problem = new ProblemError(413, 'payload_too_large', 'Payload too large', 'The body is too large.');
    else if (e?.status && e.status >= 400 && e.status < 500) problem = new ProblemError(e.status, 'bad_request', 'Bad request', String(e.message));
    else {
      onUnexpected(err);
      problem = new ProblemError(500, 'internal', 'Operation failed', 'The simulator failed unexpectedly; see its log.');
    }
    res.status(problem.status).type('application/problem+json').send(JSON.stringify(problem.toBody()));
  };
}
