/* global process, URL, __filename */
/* eslint-disable @typescript-eslint/no-require-imports -- a preload for CommonJS programs is CommonJS */
'use strict';
/**
 * Loaded with `node --require` into a vendor sample's own process, before the sample: the only
 * things it changes are transport and prompts, so the sample's code runs as published.
 *
 * - Transport: every https request whose URL starts with a prefix in VENDOR_SAMPLE_ROUTES
 *   (`[[from, to]…]`, e.g. `https://localhost` → the emulator's http base) goes to `to` over
 *   plain http; any other request, http or https, to a host that is not the loopback fails
 *   with an error, so a sample never reaches the internet.
 * - Prompts: `require('inquirer')` gets an answerer. Each question takes the first scripted
 *   answer of its name from VENDOR_SAMPLE_ANSWERS (`[[name, value]…]`), else its own default;
 *   a question with neither, an answer its validator refuses, or a question asked more than
 *   VENDOR_SAMPLE_MAX_ASKS times (a sample looping on a failure) ends the process, so a run
 *   never waits for a human. Each answer is told on stderr as `[prompt] name = value (source)`.
 */
const http = require('node:http');
const https = require('node:https');
const net = require('node:net');
const Module = require('node:module');

const routes = JSON.parse(process.env.VENDOR_SAMPLE_ROUTES || '[]');
const scripted = JSON.parse(process.env.VENDOR_SAMPLE_ANSWERS || '[]');
const maxAsks = Number(process.env.VENDOR_SAMPLE_MAX_ASKS || 3);

function say(line) {
  process.stderr.write(`${line}\n`);
}

/** `request(url[, options][, cb])` or `request(options[, cb])` as one options object and callback. */
function normalise(args) {
  const [a, b, c] = args;
  if (typeof a === 'string' || a instanceof URL) {
    const u = new URL(a);
    const opts = { protocol: u.protocol, hostname: u.hostname, port: u.port, path: `${u.pathname}${u.search}` };
    if (u.username) opts.auth = `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`;
    return typeof b === 'function' ? { opts, cb: b } : { opts: { ...opts, ...b }, cb: c };
  }
  return { opts: { ...a }, cb: typeof b === 'function' ? b : c };
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '[::1]']);

function hostOf(opts) {
  return String(opts.hostname || opts.host || 'localhost').replace(/:\d+$/, '');
}

const httpRequest = http.request;

/** A request that fails with `message` instead of connecting. */
function refused(opts, cb, message) {
  say(`[transport] refused: ${message}`);
  const createConnection = () => {
    const socket = new net.Socket();
    process.nextTick(() => socket.destroy(new Error(message)));
    return socket;
  };
  // No agent: an agent would open its own connection and ignore createConnection.
  return httpRequest({ ...opts, protocol: 'http:', agent: undefined, createConnection }, cb);
}

http.request = function request(...args) {
  const { opts, cb } = normalise(args);
  if (!LOOPBACK.has(hostOf(opts))) return refused(opts, cb, `no network in tests: http://${hostOf(opts)}${opts.path || '/'}`);
  return httpRequest(opts, cb);
};
http.get = function get(...args) {
  const req = http.request(...args);
  req.end();
  return req;
};

https.request = function request(...args) {
  const { opts, cb } = normalise(args);
  const port = opts.port && String(opts.port) !== '443' ? `:${opts.port}` : '';
  const url = `https://${hostOf(opts)}${port}${opts.path || '/'}`;
  const route = routes.find(([from]) => url.startsWith(from));
  if (!route) return refused(opts, cb, `no network in tests: ${url}`);
  const to = new URL(`${route[1]}${url.slice(route[0].length)}`);
  const headers = { ...opts.headers };
  delete headers.host;
  delete headers.Host;
  return httpRequest(
    { ...opts, headers, protocol: 'http:', hostname: to.hostname, host: to.hostname, port: to.port, path: `${to.pathname}${to.search}`, agent: undefined },
    cb,
  );
};
https.get = function get(...args) {
  const req = https.request(...args);
  req.end();
  return req;
};

const asked = new Map();

async function answerOne(q, answers) {
  const name = q.name;
  if (q.when !== undefined && !(typeof q.when === 'function' ? await q.when(answers) : q.when)) return;
  const times = (asked.get(name) || 0) + 1;
  asked.set(name, times);
  if (times > maxAsks) {
    say(`[prompt] "${name}" asked ${times} times: the sample is looping`);
    process.exit(71);
  }
  const i = scripted.findIndex(([n]) => n === name);
  let value;
  let source;
  if (i >= 0) {
    value = scripted.splice(i, 1)[0][1];
    source = 'scripted';
  } else {
    value = typeof q.default === 'function' ? await q.default(answers) : q.default;
    source = 'default';
  }
  if (value === undefined) {
    say(`[prompt] "${name}" (${String(q.message).trim()}) has no default and no scripted answer`);
    process.exit(70);
  }
  // A list's answer may be given by the choice's label; the sample gets the choice's value.
  const choices = typeof q.choices === 'function' ? await q.choices(answers) : q.choices;
  if (Array.isArray(choices) && typeof value === 'string') {
    const choice = choices.find((c) => c && typeof c === 'object' && (c.name === value || c.value === value));
    if (choice) value = choice.value;
  }
  if (q.type === 'number') value = Number(value);
  if (q.type === 'confirm') value = Boolean(value);
  if (typeof q.filter === 'function') value = await q.filter(value, answers);
  if (typeof q.validate === 'function') {
    const ok = await q.validate(value, answers);
    if (ok !== true) {
      say(`[prompt] "${name}" refused ${JSON.stringify(value)}: ${ok}`);
      process.exit(72);
    }
  }
  say(`[prompt] ${name} = ${JSON.stringify(value)} (${source})`);
  answers[name] = value;
}

async function prompt(questions) {
  const answers = {};
  for (const q of Array.isArray(questions) ? questions : [questions]) await answerOne(q, answers);
  return answers;
}

module.exports = { prompt };

const resolve = Module._resolveFilename;
Module._resolveFilename = function resolveFilename(request, ...rest) {
  return request === 'inquirer' ? __filename : resolve.call(this, request, ...rest);
};
