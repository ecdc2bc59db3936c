import { NotFoundError, UnavailableError, UpstreamError } from '../platform/errors.js';

/** What the custody service said when it refused a request (its problem+json body). */
export interface CustodyProblem {
  /** The custody call, e.g. `POST /vaults/{id}/sign`, without host or credentials. */
  operation: string;
  upstreamStatus: number;
  upstreamType?: string;
  upstreamTitle?: string;
  upstreamDetails?: string;
}

function describe(p: CustodyProblem): string {
  const said = [p.upstreamTitle, p.upstreamDetails].filter(Boolean).join(': ');
  return `custody ${p.operation} answered ${p.upstreamStatus}${said ? ` (${said})` : ''}`;
}

/**
 * The custody service refused a request (4xx other than 404, or an answer we cannot use).
 * Not retryable: sending the same request again gets the same answer.
 */
export class CustodyRequestError extends UpstreamError {
  readonly problem: CustodyProblem;
  constructor(problem: CustodyProblem, errCode = 'ERR_CUSTODY_REJECTED', cause?: unknown) {
    super(describe(problem), false, cause, errCode);
    this.problem = problem;
  }
}

/** 404 from the custody service: the vault or operation does not exist there. */
export class CustodyNotFoundError extends NotFoundError {
  readonly problem: CustodyProblem;
  constructor(problem: CustodyProblem) {
    super(describe(problem));
    this.problem = problem;
  }
}

/**
 * The custody service says it is not operational (its status route answered 500): its own
 * words are kept, and it is retryable, since the service may recover.
 */
export class CustodyNotOperationalError extends UnavailableError {
  readonly problem: CustodyProblem;
  constructor(problem: CustodyProblem) {
    super(describe(problem), undefined, 'ERR_CUSTODY_NOT_OPERATIONAL');
    this.problem = problem;
  }
}
