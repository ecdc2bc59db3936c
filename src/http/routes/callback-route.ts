import type { Request } from 'express';
import { z } from 'zod';
import { AppError, ForbiddenError, UnauthorizedError, UnavailableError, VerificationError } from '../../platform/errors.js';
import { acceptSignatures, attemptOfDigest, callbackBodySchema, operationForDigests } from '../../withdrawals/accept-signatures.js';
import { attemptsOf } from '../../withdrawals/model/operation.js';
import { SETTLE_OUTCOMES, settleFromCustody } from '../../withdrawals/settle-from-custody.js';
import { boundedForLog } from '../../platform/logger.js';
import type { PipelineDeps } from '../../withdrawals/pipeline-deps.js';
import { checkCallback, SIGNATURE_HEADER, TIMESTAMP_HEADER } from '../../security/callback-hmac.js';
import { REQUEST_LOG_FIELDS, type RawBodyRequest } from '../app.js';
import { defineRoute } from '../route.js';
import { SIGN_CALLBACK_PATH } from '../../platform/api-base.js';
import { clientAddress } from '../client-address.js';

/**
 * POST /sign_complete_callback?ledgerId=…: the peer allow-list and, only when CALLBACK_SECRET
 * is set, an HMAC over timestamp and raw body (the custody service sends none; a proxy may
 * add it); then content-verified by `acceptSignatures`, which refuses every signature that
 * does not verify against the stored digest and key. It answers 200 only after the
 * signatures are stored and the broadcast job is durably enqueued; with Redis down it
 * answers 503 and the custody service resends.
 *
 * A callback without signatures only says that the operation ended: it is not trusted, the
 * custody service is asked instead (`settleFromCustody`), and a declined, canceled, failed or
 * errored sign operation ends the withdrawal FAILED with its reservations given back (a
 * replacement's ends that attempt only).
 */
export function callbackRoute(deps: PipelineDeps) {
  const { callbackSecret, callbackToleranceSeconds, callbackAllowedIps } = deps.config;
  if (!callbackSecret && !callbackAllowedIps && !deps.config.sandboxProfile) {
    deps.logger.warn(
      { securityEvent: 'callback-config' },
      'the signing callback is open to any caller (no CALLBACK_ALLOWED_IPS, no CALLBACK_SECRET): only content verification protects it; restrict it to the custody service with CALLBACK_ALLOWED_IPS or an mTLS proxy',
    );
  }
  // Before the body is even read: a caller not on the allow-list costs no body read and no parse.
  const admit = (req: Request): AppError | undefined =>
    callbackAllowedIps && !callbackAllowedIps.includes(clientAddress(req)) ? new ForbiddenError('The caller is not on the callback allow-list') : undefined;
  // Before the body is parsed as a callback: an unauthenticated caller learns nothing.
  const authenticate = (req: Request): AppError | undefined => {
    if (!callbackSecret) return undefined;
    const raw = (req as RawBodyRequest).rawBody ?? Buffer.alloc(0);
    const failure = checkCallback(callbackSecret, raw, req.header(TIMESTAMP_HEADER), req.header(SIGNATURE_HEADER), callbackToleranceSeconds);
    return failure ? new UnauthorizedError(`Callback authentication failed: ${failure}`) : undefined;
  };
  const refuse = (req: Request, failure: AppError | undefined): void => {
    if (!failure) return;
    deps.metrics?.callbacksRejected.inc({ reason: failure.errCode });
    deps.logger.warn(
      { securityEvent: 'callback', peer: clientAddress(req), reason: failure.errCode, details: boundedForLog(failure.details) },
      'callback rejected',
    );
    throw failure;
  };
  return defineRoute({
    method: 'post',
    path: SIGN_CALLBACK_PATH,
    summary: 'Signing completion callback from the custody service',
    tags: ['custody'],
    // Bursts of callbacks (a batch payout approved at once): served ahead of Express.
    lean: true,
    query: z.object({ ledgerId: z.string().min(1).max(64) }),
    body: callbackBodySchema,
    response: z.object({
      accepted: z.boolean(),
      outcome: z.enum(SETTLE_OUTCOMES),
      withdrawalId: z.string().describe("This service's own id of the withdrawal the callback was matched to"),
      operationID: z.string().optional().describe('Its custody operation id, once the sign request was accepted'),
    }),
    errors: [401, 403, 404, 409, 503],
    security: [{ callbackTimestamp: [], callbackSignature: [] }, {}],
    responses: {
      400: { description: 'Malformed body, or the signatures failed verification (ERR_VERIFICATION_FAILED with `reason`)' },
      401: {
        description: `${TIMESTAMP_HEADER} / ${SIGNATURE_HEADER} missing, outside the tolerance, or not the HMAC-SHA256 of "<timestamp>.<raw body>" under CALLBACK_SECRET`,
      },
      403: { description: 'The caller is not on the callback allow-list (CALLBACK_ALLOWED_IPS)' },
      404: { description: 'No stored operation has these digests' },
      409: { description: 'The callback does not match the stored operation (ledger, keys, digests) or the operation is final' },
    },
    bodyLimit: deps.config.callbackBodyLimit,
    beforeBody: (req) => refuse(req, admit(req)),
    guard: (req) => refuse(req, authenticate(req)),
    handler: async ({ query, body, req, res }) => {
      // One line per callback, the request's own (app.ts): what was done to which operation.
      const logged = (outcome: string, withdrawalId: string, note?: string) =>
        (res.locals[REQUEST_LOG_FIELDS] = { securityEvent: 'callback', ledgerId: query.ledgerId, outcome, withdrawalId, ...(note ? { note } : {}) });
      try {
        if (body.signatures.length === 0) {
          const op = await operationForDigests(deps, query.ledgerId, body.dataToSign, body.publicKeys);
          // The original or a replacement (speed-up, cancel), by the digests: each has its own sign operation.
          const attempt = attemptOfDigest(op, body.dataToSign[0] as string);
          const waiting = attemptsOf(op)[attempt];
          if (attempt === 0 ? op.status === 'EXECUTING' && !op.operationID : waiting?.status === 'signing' && !waiting.operationID) {
            // The sign request's answer is not recorded yet, so there is nothing to look up: resend.
            throw new UnavailableError('the sign operation of this withdrawal is not recorded yet; send the callback again', undefined, 'ERR_NOT_READY');
          }
          const outcome = await settleFromCustody(deps, op, attempt);
          logged(outcome, op.id, 'no signatures: the sign operation was looked up at the custody service');
          deps.metrics?.callbacksAccepted.inc({ outcome });
          return { accepted: true, outcome, withdrawalId: op.id, ...(op.operationID ? { operationID: op.operationID } : {}) };
        }
        const { outcome, operation } = await acceptSignatures(deps, query.ledgerId, body);
        logged(outcome, operation.id);
        deps.metrics?.callbacksAccepted.inc({ outcome });
        return { accepted: true, outcome, withdrawalId: operation.id, ...(operation.operationID ? { operationID: operation.operationID } : {}) };
      } catch (e) {
        deps.metrics?.callbacksRejected.inc({ reason: e instanceof VerificationError ? e.reason : e instanceof AppError ? e.errCode : 'error' });
        if (e instanceof VerificationError || (e instanceof AppError && e.status === 409)) {
          deps.logger.warn(
            {
              securityEvent: 'callback',
              ledgerId: query.ledgerId,
              peer: clientAddress(req),
              reason: e instanceof VerificationError ? e.reason : e.errCode,
              details: boundedForLog(e.details),
            },
            'callback rejected',
          );
        }
        throw e;
      }
    },
  });
}
