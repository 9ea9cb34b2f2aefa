#!/usr/bin/env node
// memspec backend-protocol v1 adapter for TypeScript/JavaScript memory-tool backends.
//
// Drives a `betaMemoryTool(...)` runnable tool, a plain object of memory handlers
// (view/create/str_replace/insert/delete/rename), a handler function of one of two shapes, or a
// factory producing any of these, over memspec's JSON Lines protocol on stdin/stdout:
//
//   harness -> adapter  {"id": 1, "input": {"command": "view", "path": "/memories"}}
//   adapter -> harness  {"id": 1, "content": "...", "is_error": false}
//   harness -> adapter  {"id": 2, "control": "reset"}   -> {"id": 2, "ok": true}
//   harness -> adapter  {"id": 3, "control": "hello"}   -> {"id": 3, "ok": true, "protocol": 1, ...}
//
// Every tool call goes through the SDK's own `runRunnableTool` (the function BetaToolRunner
// calls), so `content` / `is_error` are exactly what the TS tool runner puts in the tool_result.
//
// Usage:
//   node memspec-adapter.mjs TARGET --base {base}          (or --memories {memories})
//                           [--shape auto|input|tool_use]  (or MEMSPEC_SHAPE)
//   TARGET = path/to/module.{js,mjs,cjs}[:exportName]  |  anthropic-local-fs
//
// Handler functions, sync or async (see callableRole for how a function's shape is found):
//   input:     handle(input) -> string | content blocks | { content, is_error }
//   tool_use:  handle({ type: 'tool_use', id, name, input }) -> { type: 'tool_result', tool_use_id, content, is_error }
// run as the `run` of a runnable tool, so what they throw is mapped by the SDK's runRunnableTool.
//
// No dependencies besides @anthropic-ai/sdk (pinned in package.json); without any SDK in reach it
// falls back to a faithful copy of the runner's error mapping.

import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL, fileURLToPath } from 'node:url';

const PROTOCOL_VERSION = 1;
const ADAPTER_NAME = 'memspec-node-adapter';
const HERE = path.dirname(fileURLToPath(import.meta.url));
const COMMANDS = ['view', 'create', 'str_replace', 'insert', 'delete', 'rename'];
const SHAPES = ['input', 'tool_use'];
// MEMSPEC_ADAPTER_DEBUG=1 logs the stack of every error a tool throws (the TS runner logs nothing).
const DEBUG = !!process.env.MEMSPEC_ADAPTER_DEBUG;

// --- stdio discipline --------------------------------------------------------------------------
// fd 1 carries protocol lines only. Anything the backend prints with console.log or
// process.stdout.write goes to stderr instead.
const log = (msg) => {
  try {
    fs.writeSync(2, `memspec-adapter: ${msg}\n`);
  } catch {}
};
function takeStdout() {
  process.stdout.write = function (chunk, encoding, cb) {
    return process.stderr.write(chunk, encoding, cb);
  };
}

function encodeReply(reply) {
  try {
    const text = JSON.stringify(reply);
    if (text !== undefined) return text;
  } catch (e) {
    // e.g. a BigInt or a cycle in returned content: the real runner could not send it either.
    return JSON.stringify({ id: reply.id ?? null, error: `backend returned content that cannot be sent: ${e.message}` });
  }
  return JSON.stringify({ id: null, error: 'reply cannot be encoded' });
}

function writeProtocolLine(reply) {
  const buf = Buffer.from(encodeReply(reply) + '\n', 'utf8');
  let off = 0;
  while (off < buf.length) {
    try {
      off += fs.writeSync(1, buf, off, buf.length - off);
    } catch (e) {
      if (e.code === 'EAGAIN') continue; // non-blocking pipe full: retry
      if (e.code === 'EPIPE') process.exit(0); // the harness went away
      throw e;
    }
  }
}


class StartupError extends Error {}

// --- arguments ---------------------------------------------------------------------------------
function parseArgs(argv) {
  const usage =
    'usage: node memspec-adapter.mjs TARGET (--base BASE | --memories MEMORIES) [--state STATE] [--shape auto|input|tool_use] [--user USER]\n' +
    '  TARGET: path/to/module.js[:exportName] | anthropic-local-fs\n' +
    '  --shape: what a handler function takes, the tool input or the whole tool_use block (default auto:\n' +
    '           from its first parameter; env MEMSPEC_SHAPE)\n' +
    '  --state: the backend\'s own folder, for its database or store file, passed to the factory as { state }\n' +
    '           (env MEMSPEC_STATE)\n' +
    '  --user: serve this user of a store shared by many users, passed to the factory as { user }\n' +
    '          (env MEMSPEC_USER; memspec check --per-user starts one process per user)\n' +
    "  example: memspec check --backend 'node adapters/node/memspec-adapter.mjs ./my-memory.mjs:handlers --base {base}'";
  const args = { target: undefined, base: undefined, memories: undefined, state: undefined, shape: undefined, user: undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const eq = a.indexOf('=');
    const [flag, inline] = a.startsWith('--') && eq > 0 ? [a.slice(0, eq), a.slice(eq + 1)] : [a, undefined];
    if (flag === '--help' || flag === '-h') {
      process.stderr.write(usage + '\n');
      process.exit(0);
    } else if (['--base', '--memories', '--state', '--shape', '--user'].includes(flag)) {
      const value = inline ?? argv[++i];
      if (value === undefined) throw new StartupError(`${flag} needs a value\n${usage}`);
      args[flag.slice(2)] = value;
    } else if (a.startsWith('--')) {
      throw new StartupError(`unknown option ${a}\n${usage}`);
    } else if (args.target === undefined) {
      args.target = a;
    } else {
      throw new StartupError(`unexpected argument ${a}\n${usage}`);
    }
  }
  if (!args.target) throw new StartupError(`missing TARGET\n${usage}`);
  let base = args.base || process.env.MEMSPEC_BASE || undefined;
  let memories = args.memories || process.env.MEMSPEC_MEMORIES || undefined;
  for (const v of [base, memories]) {
    if (v && v.includes('{') && v.includes('}')) log(`warning: path ${JSON.stringify(v)} still holds a placeholder`);
  }
  if (!base && !memories) throw new StartupError('give --base (or --memories), or set MEMSPEC_BASE / MEMSPEC_MEMORIES');
  if (base && !memories) memories = path.join(base, 'memories');
  if (memories && !base) base = path.dirname(path.resolve(memories));
  const state = args.state || process.env.MEMSPEC_STATE || undefined;
  const shape = args.shape || process.env.MEMSPEC_SHAPE || 'auto';
  if (shape !== 'auto' && !SHAPES.includes(shape)) {
    throw new StartupError(`${args.shape ? '--shape' : 'MEMSPEC_SHAPE'} ${JSON.stringify(shape)}: expected auto, input or tool_use`);
  }
  return {
    target: args.target,
    base: path.resolve(base),
    memories: path.resolve(memories),
    shape: shape === 'auto' ? undefined : shape,
    user: args.user ?? process.env.MEMSPEC_USER ?? undefined,
    state: state ? path.resolve(state) : undefined,
  };
}

// --- the SDK pieces: from the backend's own SDK when it has one ----------------------------------
// The runner's mapping relies on `e instanceof ToolError`; a backend's ToolError comes from the
// copy of @anthropic-ai/sdk *it* resolves, so that copy is preferred over the adapter's own.

function findSdkDir(fromFile) {
  let entry;
  try {
    entry = createRequire(fromFile).resolve('@anthropic-ai/sdk');
  } catch {
    return undefined;
  }
  for (let dir = path.dirname(entry); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const pj = path.join(dir, 'package.json');
    try {
      const meta = JSON.parse(fs.readFileSync(pj, 'utf8'));
      if (meta.name === '@anthropic-ai/sdk') return { dir, version: meta.version };
    } catch {}
  }
  return undefined;
}

async function importIfExists(file) {
  if (!fs.existsSync(file)) return undefined;
  return import(pathToFileURL(file).href);
}

// Faithful copies of @anthropic-ai/sdk 1.12.0, used only when no SDK with these files is in reach.
class FallbackToolError extends Error {
  constructor(content) {
    super(
      typeof content === 'string' ? content : (
        content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join(' ')
      ),
    );
    this.name = 'ToolError';
    this.content = content;
  }
}
const fallback = {
  // src/lib/tools/BetaRunnableTool.ts runRunnableTool + toolErrorContent, and
  // src/lib/internal/toolsets/sanitize.ts thrownErrorText.
  async runRunnableTool(tool, rawInput, context) {
    try {
      const input = tool.parse ? tool.parse(rawInput) : rawInput;
      const content = await tool.run(input, context);
      return { content, isError: false };
    } catch (e) {
      const content =
        e instanceof FallbackToolError || isForeignToolError(e) ? e.content
        : `Error: ${e instanceof Error ? e.message : String(e)}`;
      return { content, isError: true };
    }
  },
  ToolError: FallbackToolError,
  // src/helpers/beta/memory.ts betaMemoryTool
  betaMemoryTool(handlers, extraProps) {
    return {
      ...extraProps,
      type: 'memory_20250818',
      name: 'memory',
      parse: (content) => content,
      run: (args) => {
        const handler = handlers[args.command];
        if (!handler) throw new Error(`${args.command} not implemented`);
        return handler.bind(handlers)(args);
      },
    };
  },
};

function isForeignToolError(e) {
  // A ToolError from another copy of the SDK (ESM vs CJS build, or a second install).
  return e instanceof Error && e.name === 'ToolError' && 'content' in e;
}

async function loadSdk(fromFile) {
  const candidates = [];
  const own = fromFile && findSdkDir(fromFile);
  if (own) candidates.push({ ...own, from: 'backend' });
  const mine = findSdkDir(path.join(HERE, 'memspec-adapter.mjs'));
  if (mine && (!own || mine.dir !== own.dir)) candidates.push({ ...mine, from: 'adapter' });
  for (const c of candidates) {
    try {
      const runner = await importIfExists(path.join(c.dir, 'lib/tools/BetaRunnableTool.mjs'));
      const toolError = await importIfExists(path.join(c.dir, 'lib/tools/ToolError.mjs'));
      const memory = await importIfExists(path.join(c.dir, 'helpers/beta/memory.mjs'));
      if (runner?.runRunnableTool && toolError?.ToolError && memory?.betaMemoryTool) {
        return {
          runRunnableTool: runner.runRunnableTool,
          ToolError: toolError.ToolError,
          betaMemoryTool: memory.betaMemoryTool,
          version: c.version,
          dir: c.dir,
          helpersFrom: `@anthropic-ai/sdk ${c.version} runRunnableTool (${c.from}'s copy)`,
        };
      }
      log(`@anthropic-ai/sdk ${c.version} at ${c.dir} has no runRunnableTool; trying the next`);
    } catch (e) {
      log(`cannot load @anthropic-ai/sdk from ${c.dir}: ${e?.message ?? e}`);
    }
  }
  return {
    ...fallback,
    version: own?.version ?? null,
    dir: null,
    helpersFrom: "adapter copy of @anthropic-ai/sdk 1.12.0's runRunnableTool",
  };
}

// --- handler functions -------------------------------------------------------------------------
// A function is read by its first parameter, from its source text (what tsc and bundlers keep):
// `input`-like names or a destructured `{ command, path, ... }` make a handler of shape input;
// `toolUse`-like names or a destructured `{ id, input }` make one of shape tool_use; no parameter,
// a destructured `{ base, memories }` or any other name make a factory (as every function was
// before handlers). --shape / MEMSPEC_SHAPE names the shape of a function that takes an argument.
const TOOL_USE_PARAMS = ['toolUse', 'tool_use', 'toolUseBlock', 'tool_use_block', 'block'];
const INPUT_PARAMS = ['input', 'toolInput', 'tool_input', 'args', 'params', 'command', 'cmd', 'request', 'req'];
const INPUT_KEYS = ['command', 'path', 'old_path', 'new_path', 'file_text', 'old_str', 'new_str', 'insert_line', 'insert_text', 'view_range'];
const TOOL_USE_KEYS = ['id', 'input'];
const FACTORY_KEYS = ['base', 'memories', 'state'];
// The keys of a factory's argument that name the user of a store shared by many users.
const USER_KEYS = ['user', 'userId'];

// The first parameter of a function: { kind: 'none' | 'ident' | 'object' | 'other', name?, keys? },
// or undefined when its source cannot be read (native or bound functions).
function firstParam(fn) {
  let src;
  try {
    src = Function.prototype.toString.call(fn);
  } catch {
    return undefined;
  }
  if (/\[native code\]\s*\}\s*$/.test(src)) return undefined;
  src = src.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/\/\/[^\n]*/g, ' ').replace(/^\s*async\b\s*/, '');
  const arrow = /^([A-Za-z_$][\w$]*)\s*=>/.exec(src);
  if (arrow) return { kind: 'ident', name: arrow[1] };
  const open = src.indexOf('(');
  if (open < 0) return undefined;
  // The first parameter's text: up to the first top-level `,` or the closing `)`.
  let depth = 0;
  let quote;
  let end = src.length;
  for (let i = open + 1; i < src.length; i++) {
    const c = src[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'" || c === '`') quote = c;
    else if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c) && depth > 0) depth--;
    else if ((c === ',' || c === ')') && depth === 0) {
      end = i;
      break;
    }
  }
  const param = src.slice(open + 1, end).trim();
  if (!param) return { kind: 'none' };
  if (param.startsWith('{')) {
    // Top-level keys of the pattern: `{ command, path: p, view_range = null }`.
    const keys = [];
    let level = 0;
    let token = '';
    let expectKey = true;
    for (const c of param.slice(1)) {
      if ('([{'.includes(c)) level++;
      else if (')]}'.includes(c)) {
        if (level === 0) break;
        level--;
      } else if (level === 0 && c === ',') expectKey = true;
      else if (level === 0 && (c === ':' || c === '=')) expectKey = false;
      if (level === 0 && expectKey && /[\w$]/.test(c)) token += c;
      else if (token) {
        keys.push(token);
        token = '';
      }
    }
    if (token) keys.push(token);
    return { kind: 'object', keys };
  }
  const ident = /^([A-Za-z_$][\w$]*)\s*(=|$)/.exec(param);
  if (ident) return { kind: 'ident', name: ident[1] };
  return { kind: 'other' };
}

// What a function is: 'factory', or the shape of the handler it is.
function callableRole(fn, forced) {
  const p = firstParam(fn);
  if (!p) return forced ?? 'factory';
  if (p.kind === 'none') return 'factory';
  if (p.kind === 'object' && p.keys.some((k) => FACTORY_KEYS.includes(k))) return 'factory';
  // `{ user }` alone makes a factory; beside an input's keys (`{ command, path, user }`) a handler.
  if (p.kind === 'object' && p.keys.some((k) => USER_KEYS.includes(k)) && !p.keys.some((k) => INPUT_KEYS.includes(k))) {
    return 'factory';
  }
  if (forced) return forced;
  if (p.kind === 'ident') {
    if (TOOL_USE_PARAMS.includes(p.name)) return 'tool_use';
    if (INPUT_PARAMS.includes(p.name)) return 'input';
  } else if (p.kind === 'object') {
    if (p.keys.some((k) => INPUT_KEYS.includes(k))) return 'input';
    if (p.keys.some((k) => TOOL_USE_KEYS.includes(k))) return 'tool_use';
  }
  return 'factory';
}

// The shape of a function known to be a handler (a factory's product).
function handlerShape(fn, forced) {
  if (forced) return forced;
  const p = firstParam(fn);
  if (p?.kind === 'ident' && TOOL_USE_PARAMS.includes(p.name)) return 'tool_use';
  if (p?.kind === 'object' && !p.keys.some((k) => INPUT_KEYS.includes(k)) && p.keys.some((k) => TOOL_USE_KEYS.includes(k))) {
    return 'tool_use';
  }
  return 'input';
}

// A handler's result that carries its own is_error (a tool_result, or an input handler's
// { content, is_error }), or one no tool_result could carry (`bad`: a protocol error, as the API
// would refuse it). It travels through runRunnableTool as the run's return value.
const HANDLER_RESULT = Symbol('memspec handler result');
const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

function outcomeOf(mapping, what) {
  const isError = mapping.is_error;
  if (isError != null && typeof isError !== 'boolean') {
    return { [HANDLER_RESULT]: true, bad: `${what} has is_error ${JSON.stringify(isError)}; the API wants true, false or no is_error` };
  }
  return { [HANDLER_RESULT]: true, content: mapping.content, isError: isError === true };
}

function inputResult(result) {
  if (!isPlainObject(result)) return result; // string, content blocks, undefined: as the runner sends them
  if (!('content' in result) && !('is_error' in result) && result.type !== 'tool_result') {
    return {
      [HANDLER_RESULT]: true,
      bad: `the handler returned an object with neither \`content\` nor \`is_error\` (keys: ${Object.keys(result).join(', ') || 'none'}); return a string, an array of content blocks or { content, is_error }`,
    };
  }
  return outcomeOf(result, 'the object the handler returned');
}

function toolResult(result, toolUseId) {
  if (!isPlainObject(result)) {
    const kind = result === null ? 'null' : Array.isArray(result) ? 'an array' : typeof result;
    return { [HANDLER_RESULT]: true, bad: `a tool_use handler must return a tool_result block (an object), not ${kind}` };
  }
  if (result.type !== 'tool_result') {
    return { [HANDLER_RESULT]: true, bad: `the block the handler returned has type ${JSON.stringify(result.type)}, not "tool_result"` };
  }
  if (result.tool_use_id !== toolUseId) {
    return {
      [HANDLER_RESULT]: true,
      bad: `the tool_result has tool_use_id ${JSON.stringify(result.tool_use_id)}, not the tool_use block's id ${JSON.stringify(toolUseId)}; the API refuses a tool_result that answers no tool_use`,
    };
  }
  return outcomeOf(result, 'the tool_result');
}

// A handler function as a runnable tool, the way an application hands one to the tool runner
// ({ name: 'memory', run }); what it throws is left to runRunnableTool.
function handlerTool(fn, shape) {
  const run =
    shape === 'tool_use' ?
      async (_input, context) => {
        const block = context.toolUse;
        return toolResult(await fn({ ...block }), block.id);
      }
    : async (input) => inputResult(await fn(input));
  return { type: 'memory_20250818', name: 'memory', run, memspecShape: shape };
}

// --- the target --------------------------------------------------------------------------------
const isClass = (fn) => typeof fn === 'function' && /^class[\s{]/.test(Function.prototype.toString.call(fn));
const isRunnable = (o) => o != null && typeof o === 'object' && typeof o.run === 'function';
const isHandlers = (o) => o != null && typeof o === 'object' && COMMANDS.some((c) => typeof o[c] === 'function');

function splitTarget(target) {
  // Split on the last ':' unless what follows looks like part of a path (a Windows drive letter).
  const i = target.lastIndexOf(':');
  if (i > 1 && !/[\\/]/.test(target.slice(i + 1))) return [target.slice(0, i), target.slice(i + 1)];
  return [target, undefined];
}

async function loadTarget(target, paths) {
  // A handler function reads its folder where it likes; these name the one memspec gave.
  process.env.MEMSPEC_BASE = paths.base;
  process.env.MEMSPEC_MEMORIES = paths.memories;
  if (paths.state !== undefined) process.env.MEMSPEC_STATE = paths.state;
  if (target === 'anthropic-local-fs') {
    if (paths.user !== undefined) {
      throw new StartupError('anthropic-local-fs serves one folder and takes no user; it cannot be run with --per-user');
    }
    // The SDK of the project memspec runs in (its node_modules, or NODE_PATH), else the adapter's.
    const sdk = await loadSdk(path.join(process.cwd(), 'memspec-anthropic-local-fs.mjs'));
    if (!sdk.dir) {
      throw new StartupError(
        'anthropic-local-fs needs @anthropic-ai/sdk in reach: run memspec from a folder whose node_modules has it (npm install @anthropic-ai/sdk), or set NODE_PATH to such a node_modules (in a memspec clone: .ci/install-sdks, then NODE_PATH=adapters/node/node_modules)',
      );
    }
    const node = await import(pathToFileURL(path.join(sdk.dir, 'tools/memory/node.mjs')).href);
    const build = async () => sdk.betaMemoryTool(await node.BetaLocalFilesystemMemoryTool.init(paths.base));
    return { sdk, display: '@anthropic-ai/sdk/tools/memory/node:BetaLocalFilesystemMemoryTool', build, filesystemOnly: true };
  }

  const [file, exportName] = splitTarget(target);
  const abs = path.resolve(file);
  if (!fs.existsSync(abs)) throw new StartupError(`no such file: ${abs}`);
  const sdk = await loadSdk(abs);
  const name = exportName ?? 'default';
  let imports = 0;
  let namespace;
  // The export, from a fresh instance of the module after the first time (a reset).
  const loadExport = async () => {
    let url = pathToFileURL(abs).href;
    if (imports++ > 0) {
      delete createRequire(abs).cache[abs]; // a CommonJS module is evaluated again too
      url += `?memspec-reset=${imports}`;
    }
    const ns = await import(url);
    namespace = ns;
    // A CommonJS module's exports may only be reachable through `default`.
    let value = name in ns ? ns[name] : ns.default?.[name];
    if (value === undefined && !exportName && ns.default === undefined) {
      const found = Object.entries(ns).filter(([, v]) => isRunnable(v) || isHandlers(v) || typeof v === 'function');
      if (found.length === 1) value = found[0][1];
    }
    if (value === undefined) {
      throw new StartupError(`${file} has no export ${JSON.stringify(name)} (exports: ${Object.keys(ns).join(', ') || 'none'})`);
    }
    return value;
  };
  const value = await loadExport();
  const display = `${file}:${name}`;
  // A handler's own reset: a `reset` function on the handler (or on what a factory built), else
  // one exported beside it.
  const moduleReset = () => {
    const hook = namespace?.reset ?? namespace?.default?.reset;
    return typeof hook === 'function' && hook !== value && !isClass(hook) ? hook : undefined;
  };
  const resetOf = (fn) => (typeof fn?.reset === 'function' ? fn.reset.bind(fn) : moduleReset());

  // Turn whatever the export is into a runnable tool, the way the SDK would run it.
  const toRunnable = (v) => {
    if (isRunnable(v)) return v;
    if (isHandlers(v)) return sdk.betaMemoryTool(v);
    if (typeof v === 'function' && !isClass(v)) return handlerTool(v, handlerShape(v, paths.shape));
    if (typeof value === 'function' && !isClass(value) && (typeof v === 'string' || Array.isArray(v))) {
      throw new StartupError(
        `${display} was called as a factory, with { base, memories }, and returned ${Array.isArray(v) ? 'an array' : 'a string'}, not a tool; ` +
          'if it is a handler function, name its first parameter `input` or `toolUse`, or pass --shape input|tool_use (MEMSPEC_SHAPE)',
      );
    }
    throw new StartupError(`${display} is not a runnable tool (no run()), an object of memory handlers nor a handler function`);
  };
  // Started as a user, only a factory that takes one can keep that user's memories apart.
  const asUser = (what) =>
    new StartupError(
      `started as user ${JSON.stringify(paths.user)} (memspec check --per-user), but ${display} is ${what}: ` +
        'export a factory taking { base, memories, user }',
    );
  if (paths.user !== undefined && (isRunnable(value) || isHandlers(value))) throw asUser('a ready-made object');
  if (paths.user !== undefined && isClass(value)) throw asUser('a class');
  if (paths.user !== undefined && typeof value === 'function') {
    const p = firstParam(value);
    if (callableRole(value, paths.shape) !== 'factory') throw asUser('a handler function');
    if (p?.kind === 'none' || (p?.kind === 'object' && !p.keys.some((k) => USER_KEYS.includes(k)))) {
      throw asUser('a factory that takes no `user`');
    }
  }
  if (isRunnable(value) || isHandlers(value)) {
    // A ready-made object: its state cannot be rebuilt on reset.
    return { sdk, display, tool: toRunnable(value), build: undefined, filesystemOnly: false };
  }
  let build;
  if (isClass(value)) {
    // The SDK's own class convention: static async init(basePath), else new Cls(basePath).
    build = async () =>
      toRunnable(typeof value.init === 'function' ? await value.init(paths.base) : new value(paths.base));
  } else if (typeof value === 'function') {
    const role = callableRole(value, paths.shape);
    if (role !== 'factory') {
      // A ready-made handler function: on reset its module is loaded afresh, so that state it
      // keeps at module level starts empty.
      let current = value;
      const reload = async () => {
        current = await loadExport();
        return handlerTool(current, role);
      };
      const resetHook = () => resetOf(current);
      return { sdk, display, tool: handlerTool(value, role), build: undefined, reload, resetHook, filesystemOnly: false };
    }
    const made = { base: paths.base, memories: paths.memories, state: paths.state };
    if (paths.user !== undefined) Object.assign(made, { user: paths.user, userId: paths.user });
    let built;
    build = async () => {
      built = await value(made);
      return toRunnable(built);
    };
    const resetHook = () =>
      typeof built?.reset === 'function' ? built.reset.bind(built) : typeof built === 'function' ? moduleReset() : undefined;
    return { sdk, display, build, resetHook, filesystemOnly: false };
  } else {
    throw new StartupError(`${display} is a ${typeof value}, not a tool, handlers object, handler function, class or factory`);
  }
  return { sdk, display, build, filesystemOnly: false };
}

// Wrap run() so a ToolError from another copy of the SDK is seen as the runner's own ToolError.
function normaliseToolErrors(tool, ToolError) {
  return {
    ...tool,
    run: async (args, context) => {
      try {
        return await tool.run(args, context);
      } catch (e) {
        if (DEBUG && !(e instanceof ToolError) && !isForeignToolError(e)) log(`tool threw: ${e?.stack ?? e}`);
        if (!(e instanceof ToolError) && isForeignToolError(e)) throw new ToolError(e.content);
        throw e;
      }
    },
  };
}

// --- reset -------------------------------------------------------------------------------------
// Whether the backend has put anything in its state folder.
function keepsState(state) {
  if (!state) return false;
  try {
    return fs.readdirSync(state).length > 0;
  } catch {
    return false;
  }
}

async function wipeFolderContents(folder) {
  let st;
  try {
    st = await fs.promises.lstat(folder);
  } catch (e) {
    if (e.code === 'ENOENT') {
      await fs.promises.mkdir(folder, { recursive: true, mode: 0o700 });
      return;
    }
    throw e;
  }
  if (!st.isDirectory()) throw new Error(`${folder} is not a directory`);
  for (const name of await fs.promises.readdir(folder)) {
    // fs.rm works on lstat: a symlink is removed, never followed.
    await fs.promises.rm(path.join(folder, name), { recursive: true, force: true });
  }
}

// --- protocol ----------------------------------------------------------------------------------
async function main() {
  takeStdout();
  // A backend's stray async failure must not end the session.
  process.on('uncaughtException', (e) => log(`uncaught exception (ignored): ${e?.stack ?? e}`));
  process.on('unhandledRejection', (e) => log(`unhandled rejection (ignored): ${e?.stack ?? e}`));
  let paths, loaded;
  try {
    paths = parseArgs(process.argv.slice(2));
    loaded = await loadTarget(paths.target, paths);
    if (loaded.filesystemOnly && path.normalize(paths.memories) !== path.join(paths.base, 'memories')) {
      throw new StartupError(`${paths.target} always uses <base>/memories; ${paths.memories} is not ${paths.base}/memories`);
    }
  } catch (e) {
    log(`cannot start: ${e instanceof StartupError ? e.message : e?.stack ?? e}`);
    process.exit(2);
  }
  const { sdk, display } = loaded;
  let tool;
  try {
    tool = normaliseToolErrors(loaded.tool ?? (await loaded.build()), sdk.ToolError);
  } catch (e) {
    log(`cannot start: building ${display} failed: ${e instanceof StartupError ? e.message : e?.stack ?? e}`);
    process.exit(2);
  }
  const shapeOf = () => tool.memspecShape ?? 'tool';
  if (paths.shape && shapeOf() === 'tool') log(`shape ${paths.shape} ignored: ${display} is a tool, not a handler function`);
  const kind = shapeOf() === 'tool' ? '' : ` (handler of shape ${shapeOf()})`;
  log(`serving ${display}${kind} on ${paths.memories}; runner helpers: ${sdk.helpersFrom}`);

  let toolUseCounter = 0;
  async function callTool(id, input) {
    // The context BetaToolRunner passes; the memory tool ignores it.
    const toolUse = { type: 'tool_use', id: `toolu_memspec_${++toolUseCounter}`, name: tool.name ?? 'memory', input };
    const outcome = await sdk.runRunnableTool(tool, input, { toolUse, toolUseBlock: toolUse, signal: undefined });
    let { content, isError } = outcome;
    if (!isError && content?.[HANDLER_RESULT]) {
      // A handler function's tool_result or { content, is_error }: it says is_error itself.
      if (content.bad) {
        log(`${display}: ${content.bad}`);
        return { id, error: `${display}: ${content.bad}` };
      }
      ({ content, isError } = content);
    }
    // BetaToolRunner sends `content: outcome.content` unchanged; `undefined` (no content) is sent as null here.
    return { id, content: content === undefined ? null : content, is_error: isError };
  }

  async function control(id, what) {
    if (what === 'hello') {
      return {
        id,
        ok: true,
        protocol: PROTOCOL_VERSION,
        backend: display,
        sdk: sdk.version ?? null,
        adapter: ADAPTER_NAME,
        target: paths.target,
        shape: shapeOf(),
        runner_helpers: sdk.helpersFrom,
        language: `node ${process.version}`,
      };
    }
    if (what === 'reset') {
      try {
        // Started as one user of a shared store, the folder is every user's: only the
        // backend's own state (its rebuild) is this user's to forget.
        if (paths.user === undefined) await wipeFolderContents(paths.memories);
        const hook = loaded.resetHook?.();
        if (hook) {
          await hook({ base: paths.base, memories: paths.memories, state: paths.state, user: paths.user, userId: paths.user });
          return { id, ok: true };
        }
        if ((loaded.reload || (loaded.build && !loaded.filesystemOnly)) && keepsState(paths.state)) {
          // A store in the state folder outlives a rebuilt tool or a reloaded module.
          // Short: memspec quotes 200 characters of it.
          const why = `${display} keeps files in its state folder and has no reset hook (handler.reset or an exported reset), which no rebuild replaces`;
          log(`reset: ${why}`);
          return { id, ok: false, error: why };
        }
        if (loaded.build && !loaded.filesystemOnly) {
          tool = normaliseToolErrors(await loaded.build(), sdk.ToolError); // fresh in-memory state
        } else if (loaded.reload) {
          tool = normaliseToolErrors(await loaded.reload(), sdk.ToolError); // its module afresh
        } else if (!loaded.build) {
          // Its store may live in memory, where no reset reaches: say no, so that memspec starts
          // a new process per case instead of failing cases on an earlier case's memories.
          const why = `${display} is a ready-made object, so its store cannot be wiped; export a factory or a class to reuse one process`;
          log(`reset: ${why}`);
          return { id, ok: false, error: why };
        }
        return { id, ok: true };
      } catch (e) {
        log(`reset failed: ${e?.stack ?? e}`);
        return { id, ok: false, error: `reset failed: ${e?.message ?? e}` };
      }
    }
    return { id, ok: false, error: `unknown control ${JSON.stringify(what)}` };
  }

  async function handleLine(line) {
    if (!line.trim()) return undefined;
    let msg;
    try {
      msg = JSON.parse(line);
    } catch (e) {
      return { id: null, error: `request is not JSON: ${e.message}` };
    }
    if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) {
      return { id: null, error: 'request is not a JSON object' };
    }
    const id = msg.id ?? null;
    if ('control' in msg) return control(id, msg.control);
    if ('input' in msg) return callTool(id, msg.input);
    return { id, error: 'request has neither `input` nor `control`' };
  }

  // Serve lines strictly in order: one request, one reply.
  const decoder = new TextDecoder('utf-8');
  let pending = '';
  let chain = Promise.resolve();
  const enqueue = (line) => {
    chain = chain.then(async () => {
      let reply;
      try {
        reply = await handleLine(line);
      } catch (e) {
        log(`internal error: ${e?.stack ?? e}`);
        reply = { id: null, error: `adapter internal error: ${e?.message ?? e}` };
      }
      if (reply !== undefined) writeProtocolLine(reply);
    });
  };
  process.stdin.on('data', (chunk) => {
    pending += decoder.decode(chunk, { stream: true });
    let nl;
    while ((nl = pending.indexOf('\n')) >= 0) {
      enqueue(pending.slice(0, nl));
      pending = pending.slice(nl + 1);
    }
  });
  process.stdin.on('end', () => {
    pending += decoder.decode();
    if (pending) enqueue(pending);
    // Exit once every reply is out, even if the backend keeps timers or sockets open.
    chain.then(() => process.exit(0));
  });
}

// Exported for runner-oracle.mjs, which loads targets the same way.
export { parseArgs, loadTarget, normaliseToolErrors, StartupError };

const invokedDirectly = (() => {
  try {
    return fs.realpathSync(process.argv[1] ?? '') === fs.realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
})();
if (invokedDirectly) main();
