import type { Logger } from 'pino';
import type { HttpFetch } from '../../platform/http-client.js';
import type { Operation, Participant } from './model.js';
import type { ApproverFaultTable } from './faults.js';
import type { LoginLimiter } from './login-limit.js';
import type { EmulatorStore } from './store.js';

/** 1.0.2106 under `/custody/api/v1.0/mng`; the older base serves one of the earlier revisions. */
export type Revision = '1.0.2106' | '1.0.1905' | '1.0.1811';

export interface CallbackSettings {
  /** The receiver's `{base}`; the callback goes to `{base}/api/v1.0/sign_complete_callback`. */
  baseUrl?: string;
  /** When set, callbacks carry the HMAC headers of security/callback-hmac.ts; the real service sends none. */
  secret?: string;
  /** The HTTP client callbacks go out with: the global `fetch` unless given (a test's fake, `keepAliveFetch`). */
  fetch: HttpFetch;
  attempts: number;
  baseDelayMs: number;
  timeoutMs: number;
}

/** A password hash of a salt (auth.ts: scrypt, 32 bytes); replaceable so that tests can count its calls. */
export type PasswordHasher = (password: string, salt: string) => Buffer;

/** Reactions the automatic approver policy attaches to new records (automation.ts). */
export interface Hooks {
  participantCreated(p: Participant): Promise<void>;
  operationCreated(op: Operation): void;
  operationCompleted(op: Operation): void;
  /** A sign operation ended unsigned (declined, canceled, failed). */
  operationEnded(op: Operation): void;
}

/** The sign operations held outside the policy's weekly time slots (holds.ts). */
export interface HoldWatch {
  /**
   * Reconsiders every held operation at the emulator's clock (release, decline or keep) and
   * sets the timer for the next opening; answers how many left the hold. The timer calls it;
   * so may a caller that moved the clock by hand or changed a policy.
   */
  check(): Promise<number>;
}

/** One callback delivery (the first or a resend): POSTs answered 2xx, POSTs that never were, or dropped by a fault. */
export interface DeliveryOutcome {
  delivered: number;
  failed: number;
  dropped: boolean;
}

/** Everything a route or the engine needs, passed in; the emulator keeps no module state. */
export interface EmulatorContext {
  store: EmulatorStore;
  now(): number;
  logger: Logger;
  admin: { user: string; password: string };
  callback: CallbackSettings;
  /** Background work (timers, callbacks) is tracked here so `close()` can end it. */
  background: { signal: AbortSignal; track(work: Promise<unknown>): void; later(ms: number, work: () => Promise<unknown>): void };
  hooks: Hooks;
  holds: HoldWatch;
  iso(): string;
  /** Failed password logins per user name and per peer address (login-limit.ts). */
  loginLimiter: LoginLimiter;
  /** Computes the password hashes that logins are checked against (auth.ts; scrypt). */
  passwordHasher: PasswordHasher;
  /** Requests without credentials act as the administrator (an in-memory emulator for tests without an API key). */
  openAccess: boolean;
  /** Approver faults, set in process only (direct-control.ts). */
  approverFaults: ApproverFaultTable;
  /** Told of every finished callback delivery (direct-control.ts keeps them per operation). */
  onDelivery?(operationID: string, outcome: DeliveryOutcome): void;
}
