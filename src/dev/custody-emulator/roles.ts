import type { RequestHandler } from 'express';
import { requireToken, type Principal } from './auth.js';
import type { EmulatorContext } from './context.js';
import type { Role } from './model.js';
import { forbidden } from './problem.js';

/**
 * Which roles may call which management route: this table, checked by one guard (`authorize`)
 * where the routes are mounted (emulator.ts), in no handler. The first rule whose method and
 * path match decides. `none`: no token (the route is public or checks its own credentials).
 *
 * Sources: the published interface descriptions (the custody spec, revisions 1.0.1811 to
 * 1.0.2106, and the vendor's OpenAPI files casp_1810/1812/1901.yaml) say who authenticates
 * how, that an administrator creates API keys, and that 1.0.1811 had the roles ADMIN and USER
 * (read here as Super_User and Trader); they do not say which role may call which operation
 * (custody-api.md: "Not shown: which role may call which operation"). Every other rule is the
 * emulator's own choice, marked so: separation of duties between administration
 * (Security_Officer: accounts, participants, vaults) and use (Trader: signing), with
 * Super_User allowed everything and alone managing users, API keys and the configuration.
 * docs/custody-emulator.md lists the table.
 */
export interface RoleRule {
  /** What the rule covers, as the 403 names it. */
  what: string;
  methods: readonly string[];
  /** Express-style paths under `{mng}`; `*` matches any path. */
  paths: readonly string[];
  roles: 'none' | readonly Role[];
}

const ALL: readonly Role[] = ['Super_User', 'Security_Officer', 'Trader'];
const SUPER_USER: readonly Role[] = ['Super_User'];
const ADMINISTRATION: readonly Role[] = ['Super_User', 'Security_Officer'];
const SIGNING: readonly Role[] = ['Super_User', 'Trader'];

export const ROLE_RULES: readonly RoleRule[] = [
  // custody-api.md, Authentication 6: status is shown without the Authorization header.
  { what: 'the service status', methods: ['GET'], paths: ['/status'], roles: 'none' },
  // casp_1812/1901.yaml: the token and password operations take HTTP Basic (custody-management-facts.md: how the samples log in).
  { what: 'logging in', methods: ['POST'], paths: ['/auth/token', '/auth/tokens'], roles: 'none' },
  { what: "changing one's own password", methods: ['PUT'], paths: ['/auth/password', '/auth/users/password'], roles: 'none' },
  // custody-api.md, Authentication 3: "a token is revoked by its owner name". Emulator's choice: anyone its own tokens, a Super_User anyone's (auth-routes.ts).
  { what: 'token revocation', methods: ['DELETE'], paths: ['/auth/token/:owner', '/auth/tokens/:owner', '/auth/tokens'], roles: ALL },
  // casp_1901.yaml, tag Authentication: "The CASP Admin generates an API key"; custody-api.md, Authentication 2: "An administrator creates it".
  { what: 'API key administration', methods: ['GET', 'POST', 'DELETE'], paths: ['/auth/apikeys', '/auth/apikeys/:clientId'], roles: SUPER_USER },
  // casp_1812.yaml: users are created with the role ADMIN or USER; user administration is the administrator's (ADMIN = Super_User).
  {
    what: 'user administration',
    methods: ['GET', 'POST', 'PUT', 'DELETE'],
    paths: ['/auth/users', '/auth/users/:user', '/auth/users/:user/password', '/auth/:user'],
    roles: SUPER_USER,
  },
  // Emulator's choice: the service's configuration is the Super_User's.
  { what: 'reloading the configuration', methods: ['POST'], paths: ['/reloadconfig'], roles: SUPER_USER },
  // Emulator's choice: who may approve is administration (Security_Officer), not trading.
  {
    what: 'account and participant administration',
    methods: ['POST', 'PUT', 'DELETE'],
    paths: ['/accounts', '/accounts/:id', '/accounts/:id/participants', '/participants/:id', '/participants/:id/reactivate'],
    roles: ADMINISTRATION,
  },
  {
    what: 'vault administration',
    methods: ['POST', 'PUT', 'DELETE'],
    paths: [
      '/accounts/:id/vaults',
      '/vaults/:id',
      '/vaults/:id/coins',
      '/vaults/:id/members/:participantId',
      '/vaults/:id/members/:participantId/status',
      '/vaults/:id/policies/:policyId/members/:participantId/status',
      '/vaults/:id/approval_groups/:groupId/members',
    ],
    roles: ADMINISTRATION,
  },
  // Emulator's choice: new keys of an existing vault (a deposit address) are for whoever uses the vault.
  {
    what: 'new keys of a vault',
    methods: ['POST'],
    paths: ['/vaults/:id/coins/:coinType/accounts', '/vaults/:id/coins/:coinType/accounts/:account/chains/:chain/addresses', '/vaults/:id/derivations'],
    roles: ALL,
  },
  // Emulator's choice: signing is the Trader's (the connector's user), not the Security_Officer's.
  {
    what: 'signing',
    methods: ['POST'],
    paths: ['/vaults/:id/sign', '/operations/sign/:operationId/resend', '/operations/:operationId/cancel'],
    roles: SIGNING,
  },
  // Emulator's choice: every role reads everything else (accounts, participants, vaults, keys, backups, operations).
  { what: 'reading', methods: ['GET', 'HEAD'], paths: ['*'], roles: ALL },
  // Anything not listed (an unknown route, or one added without a rule) is the Super_User's.
  { what: 'this route', methods: ['*'], paths: ['*'], roles: SUPER_USER },
];

const compile = (path: string): RegExp =>
  path === '*' ? /^/ : new RegExp(`^${path.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z]+/g, '[^/]+')}/?$`, 'i');

const compiled = ROLE_RULES.map((rule) => ({ rule, patterns: rule.paths.map(compile) }));

/** The rule for a request (`path` relative to `{mng}`); paths match as Express matches them (case-insensitive, an optional trailing slash). */
export function roleRule(method: string, path: string): RoleRule {
  const m = method.toUpperCase();
  for (const { rule, patterns } of compiled) {
    if ((rule.methods.includes('*') || rule.methods.includes(m)) && patterns.some((p) => p.test(path))) return rule;
  }
  throw new Error('the last role rule matches every request');
}

/**
 * The one guard of the management routes: the token (requireToken) unless the rule needs none,
 * then the role; 403 `role-not-allowed` names the roles the rule allows.
 */
export function authorize(ctx: EmulatorContext): RequestHandler {
  const token = requireToken(ctx);
  return (req, res, next) => {
    const rule = roleRule(req.method, req.path);
    if (rule.roles === 'none') return next();
    const roles = rule.roles;
    const checkRole = (err?: unknown) => {
      if (err) return next(err);
      const p = res.locals.principal as Principal;
      if (roles.includes(p.role)) return next();
      next(forbidden(`${rule.what} needs the role ${roles.join(' or ')}; this token acts as ${p.role}.`, 'role-not-allowed'));
    };
    Promise.resolve(token(req, res, checkRole)).catch(next);
  };
}
