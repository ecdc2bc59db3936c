import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { z } from 'zod';

/**
 * A management-layer error, rendered as `application/problem+json`
 * `{type: '/mng/errors/<id>', title, details, status}` like the custody service does.
 * Error ids are kebab-case (`malformed-body`, `digest-mismatch`, …).
 */
export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly errorId: string,
    readonly title: string,
    readonly details: string,
    /** Headers the answer carries besides the body (e.g. Retry-After). */
    readonly headers: Record<string, string> = {},
  ) {
    super(`${title}: ${details}`);
    this.name = 'ProblemError';
  }

  toBody(): Record<string, unknown> {
    return { type: `/mng/errors/${this.errorId}`, title: this.title, details: this.details, status: this.status };
  }
}

/** zod issues as one line: `field.path: message; …`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(body)'}: ${i.message}`).join('; ');
}

/** `application/problem+json` errors with the status codes of the spec's tables. */
export const badRequest = (details: string, id = 'bad-request') => new ProblemError(400, id, 'Bad request', details);
export const unauthorized = (details: string, id = 'unauthorized') => new ProblemError(401, id, 'Unauthorized', details);
export const forbidden = (details: string, id = 'forbidden') => new ProblemError(403, id, 'Forbidden', details);
export const notFound = (details: string, id = 'not-found') => new ProblemError(404, id, 'Not found', details);
export const notAcceptable = (details: string, id = 'not-acceptable') => new ProblemError(406, id, 'Not acceptable', details);
export const conflict = (details: string, id = 'conflict') => new ProblemError(409, id, 'Conflict', details);

/** Validates a body or query with zod; every failure is a 400 naming the fields. */
export function parse<T>(schema: z.ZodType<T>, value: unknown, what = 'body'): T {
  const r = schema.safeParse(value ?? {});
  if (!r.success) throw badRequest(`Invalid ${what}: ${describeIssues(r.error)}`, 'invalid-arguments');
  return r.data;
}

export function sendProblem(res: Parameters<RequestHandler>[1], problem: ProblemError, extra: Record<string, unknown> = {}): void {
  res
    .set(problem.headers)
    .status(problem.status)
    .type('application/problem+json')
    .send(JSON.stringify({ ...extra, ...problem.toBody() }));
}

export const unknownRoute: RequestHandler = (req, _res, next) => {
  next(notFound(`No route ${req.method} ${req.path}`, 'no-route'));
};

/** Body-parser failures are the client's (400/413/415); anything else is the emulator's own fault (500, logged). */
export function problemHandler(onUnexpected: (err: unknown) => void): ErrorRequestHandler {
  return (err, _req, res, _next) => {
    const e = err as { type?: string; status?: number; message?: string };
    let problem: ProblemError;
    if (err instanceof ProblemError) problem = err;
    else if (e?.type === 'entity.parse.failed') problem = badRequest('The body is not valid JSON.', 'malformed-body');
    else if (e?.type === 'entity.too.large') problem = new ProblemError(413, 'payload-too-large', 'Payload too large', 'The body is too large.');
    else if (e?.status && e.status >= 400 && e.status < 500) problem = new ProblemError(e.status, 'bad-request', 'Bad request', String(e.message));
    else {
      onUnexpected(err);
      problem = new ProblemError(500, 'internal', 'Operation failed', 'The emulator failed unexpectedly; see its log.');
    }
    sendProblem(res, problem);
  };
}
