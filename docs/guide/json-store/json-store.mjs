// A memory-tool backend (memory_20250818) that keeps every user's memories in ONE JSON file.
//
// The Node shape of the worked example in docs/guide/json-store/README.md (json_store.py is
// the same store in Python). Node 20, no dependencies.
//
//   memspec check --strict --node docs/guide/json-store/json-store.mjs:makeStore --per-user
//
// The store is `{state}/memories.json`:
//
//   {"users": {"alice": {"/memories/notes.md": "text", "/memories/projects/": ""}, "bob": {...}}}
//
// A file is the key of its path, holding its text; a folder is a key ending in `/` (its
// marker), so a folder stays when its last file goes, as on a disk. Each command holds the
// lock `{state}/memories.lock` from before it reads the file until after it wrote it; a
// command that changes something writes the whole file anew: a temp file in the same folder,
// fsynced, renamed over the old one, then the folder fsynced. A process killed at any point
// leaves the old file or the new one, never a torn one.
//
// Node has no flock, so the lock is a file that holds its owner's pid, made atomically (a
// private file with the pid, hard-linked to the lock's name: the link fails if the lock is
// held). A lock whose owner is dead (killed mid-command: `process.kill(pid, 0)` throws ESRCH,
// or the process is a zombie) is taken over, under a second lock for that step alone, so that
// two processes never both take it over.

import fs from 'node:fs';
import path from 'node:path';

const ROOT = '/memories';
const COMMANDS = ['view', 'create', 'str_replace', 'insert', 'delete', 'rename'];
const MAX_LINES = 999_999; // a longer file is refused by view (the spec's limit)
const VIEW_CHAR_BUDGET = 16_000; // a longer view is cut at whole lines (decide.long-views)
const MAX_PATH_BYTES = 4096;
const MAX_COMPONENT_BYTES = 255;
const SNIPPET_CONTEXT = 4; // lines shown around a str_replace
const LOCK_TRIES = 3000; // with a 1-10 ms sleep: about 30 s before a command gives up

/** An answer with is_error true; its message is what Claude reads. */
class Fail extends Error {}

// --- the lock ------------------------------------------------------------------------------

const sleeper = new Int32Array(new SharedArrayBuffer(4));
const sleep = (ms) => Atomics.wait(sleeper, 0, 0, ms); // a synchronous sleep

/** Whether the process `pid` is gone (or a zombie, which holds nothing any more). */
function dead(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false; // a lock being written: not stale yet
  if (pid === process.pid) return true; // ours, left by a command that threw: nobody holds it
  try {
    process.kill(pid, 0);
  } catch (e) {
    return e.code === 'ESRCH';
  }
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, 'latin1').replace(/^.*\) /s, '')[0] === 'Z';
  } catch {
    return false;
  }
}

function owner(file) {
  try {
    return Number.parseInt(fs.readFileSync(file, 'utf8'), 10);
  } catch {
    return NaN; // gone meanwhile
  }
}

/** Makes `file` hold our pid, atomically and only if it does not exist; false if it does. */
function tryLock(file) {
  const mine = `${file}.${process.pid}`;
  fs.writeFileSync(mine, String(process.pid));
  try {
    fs.linkSync(mine, file);
    return true;
  } catch (e) {
    if (e.code === 'EEXIST') return false;
    throw e;
  } finally {
    fs.rmSync(mine, { force: true });
  }
}

function lock(file) {
  for (let i = 0; i < LOCK_TRIES; i++) {
    if (tryLock(file)) return;
    const pid = owner(file);
    if (dead(pid)) {
      // Take the lock over: remove it only while holding the takeover lock, and only if it is
      // still the dead owner's. A takeover lock left by a dead process is simply removed.
      const guard = `${file}.takeover`;
      if (tryLock(guard)) {
        try {
          if (owner(file) === pid) fs.rmSync(file, { force: true });
        } finally {
          fs.rmSync(guard, { force: true });
        }
        continue;
      }
      if (dead(owner(guard))) fs.rmSync(guard, { force: true });
    }
    sleep(1 + Math.floor(Math.random() * 10));
  }
  throw new Error(`the store's lock ${file} is still held after ${LOCK_TRIES} tries`);
}

// --- the store file ------------------------------------------------------------------------

class JsonFile {
  constructor(state) {
    fs.mkdirSync(state, { recursive: true });
    this.folder = state;
    this.file = path.join(state, 'memories.json');
    this.lockFile = path.join(state, 'memories.lock');
  }

  /** Runs `body(doc, changed)` under the lock, and writes the document back if the body
   * pushed anything into `changed`. A body that throws leaves the file as it was. */
  command(body) {
    lock(this.lockFile);
    try {
      const doc = this.load();
      const changed = [];
      const result = body(doc, changed);
      if (changed.length) this.save(doc);
      return result;
    } finally {
      fs.rmSync(this.lockFile, { force: true });
    }
  }

  load() {
    try {
      return JSON.parse(fs.readFileSync(this.file, 'utf8'));
    } catch (e) {
      if (e.code === 'ENOENT') return { users: {} };
      throw e;
    }
  }

  save(doc) {
    const tmp = `${this.file}.tmp`; // only the lock holder writes it, so one name is enough
    const fd = fs.openSync(tmp, 'w');
    try {
      fs.writeSync(fd, JSON.stringify(doc)); // lone surrogates are written as \uXXXX escapes
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, this.file);
    const dir = fs.openSync(this.folder, 'r');
    try {
      fs.fsyncSync(dir); // the rename itself is durable
    } finally {
      fs.closeSync(dir);
    }
  }
}

/** obj[key] = value as an own property, whatever the key (`__proto__` is a user id too). */
const own = (obj, key, value) => Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });

/** One user's memories inside the document: key -> text, folders as `…/` markers. */
class Memories {
  constructor(doc, changed, user) {
    this.doc = doc;
    this.changed = changed;
    this.user = user;
    this.items = Object.hasOwn(doc.users, user) ? doc.users[user] : {};
  }
  get(key) {
    return Object.hasOwn(this.items, key) ? this.items[key] : undefined;
  }
  put(key, text) {
    own(this.doc.users, this.user, this.items);
    own(this.items, key, text);
    this.changed.push(key);
  }
  remove(key) {
    if (Object.hasOwn(this.items, key)) {
      delete this.items[key];
      this.changed.push(key);
    }
  }
  /** [key, text] of every key that starts with prefix. */
  scan(prefix) {
    return Object.entries(this.items).filter(([k]) => k.startsWith(prefix));
  }
}

// --- messages ------------------------------------------------------------------------------

const INT_MIN = -(2 ** 63);
const INT_MAX = 2 ** 64 - 1;

function isInt(v) {
  return typeof v === 'number' && Number.isInteger(v) && v >= INT_MIN && v <= INT_MAX;
}

function jsonType(v) {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'boolean') return 'a boolean';
  if (typeof v === 'number') return isInt(v) ? 'an integer' : 'a non-integer number';
  if (typeof v === 'string') return 'a string';
  if (Array.isArray(v)) return 'an array';
  return 'an object';
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Control characters escaped as Rust's escape_default writes them (the reference's). */
function printable(text) {
  const names = { '\t': '\\t', '\r': '\\r', '\n': '\\n' };
  return [...text].map((c) => (CONTROL.test(c) ? names[c] ?? `\\u{${c.codePointAt(0).toString(16)}}` : c)).join('');
}

/** A listing's size: 512B, 1.5K, 2.0M, rounded to tenths with ties to even. */
function humanSize(n) {
  if (n < 1024) return `${n}B`;
  const units = 'KMGTPE';
  let value = n / 1024;
  let unit = 0;
  while (value >= 1023.95 && unit + 1 < units.length) {
    value /= 1024;
    unit += 1;
  }
  const shift = BigInt(10 * (unit + 1));
  const scaled = BigInt(n) * 10n;
  const quotient = scaled >> shift;
  const remainder = scaled & ((1n << shift) - 1n);
  const half = 1n << (shift - 1n);
  const tenths = quotient + (remainder > half || (remainder === half && quotient % 2n === 1n) ? 1n : 0n);
  return `${tenths / 10n}.${tenths % 10n}${units[unit]}`;
}

const utf8Len = (text) => Buffer.byteLength(text, 'utf8');
const chars = (text) => [...text].length;

/** Text to store: it must be valid Unicode (JSON can carry a lone surrogate). */
function checkedText(text) {
  if (!text.isWellFormed()) throw new Fail('Error: The tool input contains text that is not valid Unicode.');
  return text;
}

// --- paths ---------------------------------------------------------------------------------

// Characters that look like `.`, `/` or `\`: a segment that would be traversal with them read
// as what they look like is refused.
const LOOKALIKES = {
  '\u2024': '.', '\ufe52': '.', '\uff0e': '.', '\u2025': '.', '\ufe30': '.', '\u2026': '.',
  '\ufe19': '.', '\u2e33': '.',
  '\u2100': '/', '\u2101': '/', '\u2105': '/', '\u2106': '/', '\uff0f': '/',
  '\u2044': '/', '\u2215': '/', '\u29f8': '/', '\u1735': '/',
  '\ufe68': '\\', '\uff3c': '\\', '\u2216': '\\', '\u29f9': '\\',
};

const REASONS = {
  outside: 'memory paths must be /memories or start with /memories/',
  dot: '`.` and `..` segments are not allowed',
  backslash: 'backslashes are not allowed',
  control: 'control characters such as NUL are not allowed',
  encoded: 'percent-encoded dots, slashes, backslashes and NUL are not allowed',
  lookalike: 'characters that look like dots, slashes or backslashes are not allowed',
  long: 'it is longer than 4096 bytes',
  component: 'a path segment is longer than 255 bytes',
};

const HEX = /^[0-9a-fA-F]{2}$/;

/** The segment with %XX decoded once, or null when it has no %XX. */
function percentDecoded(segment) {
  const raw = Buffer.from(segment, 'utf8');
  const out = [];
  let changed = false;
  for (let i = 0; i < raw.length; i++) {
    const hex = raw.subarray(i + 1, i + 3).toString('latin1');
    if (raw[i] === 0x25 && HEX.test(hex)) {
      out.push(Number.parseInt(hex, 16));
      i += 2;
      changed = true;
    } else {
      out.push(raw[i]);
    }
  }
  return changed ? Buffer.from(out).toString('utf8') : null;
}

const traversalLike = (s) => s === '.' || s === '..' || s.includes('/') || s.includes('\\') || s.includes('\0');

function segmentFault(segment) {
  if (segment === '.' || segment === '..') return 'dot';
  if (utf8Len(segment) > MAX_COMPONENT_BYTES) return 'component';
  let decoded = segment;
  for (let i = 0; i < 3; i++) {
    // %252e%252e is `..` decoded twice
    decoded = percentDecoded(decoded);
    if (decoded === null) break;
    if (traversalLike(decoded)) return 'encoded';
  }
  const folded = [...segment].map((c) => LOOKALIKES[c] ?? c).join('');
  if (folded !== segment && traversalLike(folded)) return 'lookalike';
  return null;
}

const keyOf = (parts) => ROOT + parts.map((s) => `/${s}`).join('');

/** A memory path as Claude spelled it: its segments, and whether it ends with `/`. */
class MemoryPath {
  constructor(spelled) {
    let fault = null;
    if (CONTROL.test(spelled)) fault = 'control';
    else if (spelled.includes('\\')) fault = 'backslash';
    else if (utf8Len(spelled) > MAX_PATH_BYTES) fault = 'long';
    else if (!(spelled === ROOT || spelled.startsWith(`${ROOT}/`))) fault = 'outside';
    const parts = [];
    if (!fault) {
      for (const segment of spelled.slice(ROOT.length).split('/')) {
        if (!segment) continue; // `//` and a final `/` name the same place
        fault = segmentFault(segment);
        if (fault) break;
        parts.push(segment);
      }
    }
    if (fault) throw new Fail(`Error: The path ${printable(spelled)} is not a valid memory path: ${REASONS[fault]}.`);
    this.spelled = spelled;
    this.parts = parts;
    const rest = spelled.slice(ROOT.length);
    this.trailing = rest.length > 1 && rest.endsWith('/');
  }
  isRoot() {
    return this.parts.length === 0;
  }
  /** The store key of the path (or of its first n segments). */
  key(n = this.parts.length) {
    return keyOf(this.parts.slice(0, n));
  }
}

// --- text ----------------------------------------------------------------------------------

const count = (text, needle, from = 0, to = text.length) => {
  let n = 0;
  for (let i = text.indexOf(needle, from); i !== -1 && i < to; i = text.indexOf(needle, i + 1)) n++;
  return n;
};

/** Lines as decide.final-newline counts them: a final newline ends the last line. */
function lineCount(text) {
  const n = count(text, '\n');
  return !text || text.endsWith('\n') ? n : n + 1;
}

function linesOf(text) {
  if (!text) return [];
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  return lines;
}

const numbered = (lines, first) => lines.map((line, i) => `\n${String(first + i).padStart(6)}\t${line}`).join('');

/** A view of a long file cut at whole lines with the reference's notice (decide.long-views),
 * or null when the whole file fits in 16,000 characters. */
function cutView(lines, finalNewline, spelled) {
  const n = lines.length;
  const fitting = (first) => {
    let room = VIEW_CHAR_BUDGET;
    let shown = 0;
    for (let number = first; number <= n; number++) {
      const cost = chars(lines[number - 1]) + (number < n || finalNewline ? 1 : 0);
      if (cost > room) break;
      room -= cost;
      shown += 1;
    }
    return shown;
  };
  const shown = fitting(1);
  if (shown === n) return null;
  const following = shown + 1;
  const end = shown + Math.max(fitting(shown + 1), 1);
  const what =
    shown === 0
      ? 'this view shows none of them: line 1 alone is longer than 16,000 characters'
      : `this view shows lines 1-${shown}, the whole lines within its first 16,000 characters`;
  const how =
    end >= n
      ? `To read the rest, view ${spelled} with "view_range": [${following}, -1].`
      : `To read on, view ${spelled} with "view_range": [${following}, ${end}] for the next part, or [${following}, -1] for everything to the end.`;
  return `${numbered(lines.slice(0, shown), 1)}\n\n[Truncated: the file has ${n} lines and ${what}. ${how}]`;
}

// --- the input -----------------------------------------------------------------------------

/** The tool input's fields, with the reference's errors for missing or mistyped ones. */
class Fields {
  constructor(input, command) {
    this.input = input;
    this.command = command;
  }
  has(name) {
    return Object.hasOwn(this.input, name);
  }
  string(name) {
    if (!this.has(name)) throw new Fail(`Error: Missing required parameter \`${name}\` for command \`${this.command}\`.`);
    const value = this.input[name];
    if (typeof value !== 'string') throw new Fail(`Error: Parameter \`${name}\` must be a string, got ${jsonType(value)}.`);
    return value;
  }
  optionalString(name) {
    const value = this.has(name) ? this.input[name] : null;
    if (value !== null && typeof value !== 'string') {
      throw new Fail(`Error: Parameter \`${name}\` must be a string, got ${jsonType(value)}.`);
    }
    return value;
  }
  integer(name) {
    if (!this.has(name)) throw new Fail(`Error: Missing required parameter \`${name}\` for command \`${this.command}\`.`);
    const value = this.input[name];
    if (!isInt(value)) throw new Fail(`Error: Parameter \`${name}\` must be an integer, got ${jsonType(value)}.`);
    return value;
  }
  viewRange() {
    const value = this.has('view_range') ? this.input.view_range : null;
    if (value === null) return null;
    if (Array.isArray(value) && value.length === 2 && value.every(isInt)) return value;
    throw new Fail('Error: Invalid `view_range`. It should be a list of two integers.');
  }
}

// --- commands ------------------------------------------------------------------------------

/** The six commands over one user's memories (a `Memories`). */
class Commands {
  constructor(memories) {
    this.m = memories;
  }

  run(input) {
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      throw new Fail(`Error: The tool input must be a JSON object, got ${jsonType(input)}.`);
    }
    if (!Object.hasOwn(input, 'command')) throw new Fail('Error: Missing required parameter `command`.');
    const command = input.command;
    if (typeof command !== 'string') throw new Fail(`Error: Parameter \`command\` must be a string, got ${jsonType(command)}.`);
    if (!COMMANDS.includes(command)) {
      throw new Fail(`Error: Unknown command \`${command}\`. Valid commands are: ${COMMANDS.join(', ')}.`);
    }
    return this[command](new Fields(input, command));
  }

  // ---- what is at a path

  /** `dir`, `file` or `missing` for the path of these segments. */
  kind(parts) {
    if (parts.length === 0) return 'dir';
    if (this.m.get(keyOf(parts)) !== undefined) return 'file';
    if (this.m.get(`${keyOf(parts)}/`) !== undefined) return 'dir';
    return 'missing';
  }

  /** Checks (or makes) the folders above the last segment: null, or [fault, index] where
   * fault is `notdir` (a file is in the way) or `missing`. */
  parents(parts, make = false) {
    for (let i = 1; i < parts.length; i++) {
      const kind = this.kind(parts.slice(0, i));
      if (kind === 'missing' && make) this.m.put(`${keyOf(parts.slice(0, i))}/`, '');
      else if (kind !== 'dir') return [kind === 'file' ? 'notdir' : 'missing', i];
    }
    return null;
  }

  locate(path) {
    if (path.isRoot()) return 'dir';
    if (this.parents(path.parts)) return 'missing';
    const kind = this.kind(path.parts);
    return path.trailing && kind === 'file' ? 'missing' : kind;
  }

  /** [key, text] of a file or a folder and everything in it. */
  subtree(parts) {
    const key = keyOf(parts);
    const own = this.m.get(key) !== undefined ? [[key, this.m.get(key)]] : [];
    return own.concat(this.m.scan(`${key}/`));
  }

  textFile(path, missing) {
    if (this.locate(path) !== 'file') throw new Fail(missing);
    return this.m.get(path.key());
  }

  // ---- view

  view(f) {
    const spelled = f.string('path');
    const wanted = f.viewRange();
    const path = new MemoryPath(spelled);
    const kind = this.locate(path);
    if (kind === 'missing') throw new Fail(`The path ${spelled} does not exist. Please provide a valid path.`);
    if (kind === 'dir') {
      if (wanted !== null) throw new Fail('Error: The `view_range` parameter is not allowed when `path` points to a directory.');
      return this.listing(path);
    }
    const text = this.m.get(path.key());
    const n = lineCount(text);
    if (n > MAX_LINES) throw new Fail(`File ${spelled} exceeds maximum line limit of 999,999 lines.`);
    const lines = linesOf(text);
    const header = `Here's the content of ${spelled} with line numbers:`;
    if (wanted === null) return header + (cutView(lines, text.endsWith('\n'), spelled) ?? numbered(lines, 1));
    const [a, b] = wanted;
    if (a < 1 || a > n) {
      throw new Fail(`Error: Invalid \`view_range\`: [${a}, ${b}]. Its first element \`${a}\` should be within the range of lines of the file: [1, ${n}]`);
    }
    if (b > n) {
      throw new Fail(`Error: Invalid \`view_range\`: [${a}, ${b}]. Its second element \`${b}\` should be smaller than the number of lines in the file: \`${n}\``);
    }
    if (b !== -1 && b < a) {
      throw new Fail(`Error: Invalid \`view_range\`: [${a}, ${b}]. Its second element \`${b}\` should be larger or equal than its first \`${a}\``);
    }
    return header + numbered(lines.slice(a - 1, b === -1 ? n : b), a);
  }

  /** Two levels below the folder, hidden items and node_modules left out, sorted by the bytes
   * of their names; each line the size of a file, or of all a folder holds. */
  listing(path) {
    const at = path.key();
    const prefix = `${at}/`;
    const tree = new Map();
    for (const [key, text] of this.m.scan(prefix)) {
      const names = key.slice(prefix.length).split('/');
      const folder = names.at(-1) === '';
      if (folder) names.pop();
      if (names.length === 0 || names.some((n) => n.startsWith('.') || n === 'node_modules')) continue;
      let node = tree;
      for (const name of names.slice(0, -1)) {
        if (!node.has(name)) node.set(name, new Map());
        node = node.get(name);
      }
      const last = names.at(-1);
      if (!folder) node.set(last, utf8Len(text));
      else if (!node.has(last)) node.set(last, new Map());
    }
    const size = (node) => [...node.values()].reduce((sum, x) => sum + (x instanceof Map ? size(x) : x), 0);
    const ordered = (node) => [...node.entries()].sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    const out = [
      `Here're the files and directories up to 2 levels deep in ${path.spelled}, excluding hidden items and node_modules:`,
      `${humanSize(size(tree))}\t${at}`,
    ];
    for (const [name, x] of ordered(tree)) {
      if (!(x instanceof Map)) {
        out.push(`${humanSize(x)}\t${at}/${name}`);
        continue;
      }
      out.push(`${humanSize(size(x))}\t${at}/${name}/`);
      for (const [name2, y] of ordered(x)) {
        out.push(y instanceof Map ? `${humanSize(size(y))}\t${at}/${name}/${name2}/` : `${humanSize(y)}\t${at}/${name}/${name2}`);
      }
    }
    return out.join('\n');
  }

  // ---- writes

  create(f) {
    const spelled = f.string('path');
    const text = checkedText(f.string('file_text'));
    const path = new MemoryPath(spelled);
    if (path.isRoot()) throw new Fail(`Error: File ${spelled} already exists`);
    if (path.trailing) throw new Fail(`Error: The path ${spelled} ends with a slash; create makes files, not folders.`);
    const fault = this.parents(path.parts, true);
    if (fault) throw new Fail(`Error: Cannot create ${spelled}: ${path.key(fault[1])} is not a folder.`);
    if (this.kind(path.parts) !== 'missing') throw new Fail(`Error: File ${spelled} already exists`); // never overwrites
    this.m.put(path.key(), text);
    return `File created successfully at: ${spelled}`;
  }

  str_replace(f) {
    const spelled = f.string('path');
    const old = checkedText(f.string('old_str'));
    const replacement = checkedText(f.optionalString('new_str') ?? '');
    const path = new MemoryPath(spelled);
    const text = this.textFile(path, `Error: The path ${spelled} does not exist. Please provide a valid path.`);
    if (!old) throw new Fail(`Error: No replacement was performed on ${spelled}: \`old_str\` must not be empty.`);
    const at = text.indexOf(old);
    if (at === -1) throw new Fail(`No replacement was performed, old_str \`${old}\` did not appear verbatim in ${spelled}.`);
    if (text.indexOf(old, at + 1) !== -1) {
      const lines = [];
      for (let pos = at; pos !== -1; pos = text.indexOf(old, pos + 1)) {
        const number = count(text, '\n', 0, pos) + 1;
        if (lines.at(-1) !== number) lines.push(number);
      }
      throw new Fail(`No replacement was performed. Multiple occurrences of old_str \`${old}\` in lines: ${lines.join(', ')}. Please ensure it is unique`);
    }
    // Sliced, never String.prototype.replace, which would expand `$&` in new_str.
    const edited = text.slice(0, at) + replacement + text.slice(at + old.length);
    this.m.put(path.key(), edited);
    const first = count(text, '\n', 0, at) + 1;
    const last = first + count(replacement, '\n');
    const lo = Math.max(first - SNIPPET_CONTEXT, 1);
    const hi = Math.min(last + SNIPPET_CONTEXT, lineCount(edited));
    return `The memory file has been edited.${lo <= hi ? numbered(linesOf(edited).slice(lo - 1, hi), lo) : ''}`;
  }

  insert(f) {
    const spelled = f.string('path');
    const line = f.integer('insert_line');
    let inserted = checkedText(f.string('insert_text'));
    const path = new MemoryPath(spelled);
    const text = this.textFile(path, `Error: The path ${spelled} does not exist`);
    const n = lineCount(text);
    if (line < 0 || line > n) {
      throw new Fail(`Error: Invalid \`insert_line\` parameter: ${line}. It should be within the range of lines of the file: [0, ${n}]`);
    }
    let split = 0;
    for (let i = 0; i < line; i++) {
      const end = text.indexOf('\n', split);
      split = end === -1 ? text.length : end + 1;
    }
    let before = text.slice(0, split);
    const after = text.slice(split);
    if (before && !before.endsWith('\n') && inserted) before += '\n'; // after a last line with no newline
    if (inserted && !inserted.endsWith('\n') && after) inserted += '\n'; // the inserted text ends its line
    this.m.put(path.key(), before + inserted + after);
    return `The file ${spelled} has been edited.`;
  }

  delete(f) {
    const spelled = f.string('path');
    const path = new MemoryPath(spelled);
    if (path.isRoot()) throw new Fail('Error: Cannot delete the /memories directory itself');
    if (this.locate(path) === 'missing') throw new Fail(`Error: The path ${spelled} does not exist`);
    for (const [key] of this.subtree(path.parts)) this.m.remove(key);
    return `Successfully deleted ${spelled}`;
  }

  rename(f) {
    const oldS = f.string('old_path');
    const newS = f.string('new_path');
    const old = new MemoryPath(oldS);
    const dest = new MemoryPath(newS);
    if (old.isRoot()) throw new Fail('Error: Cannot rename the /memories directory itself');
    const kind = this.locate(old);
    if (kind === 'missing') throw new Fail(`Error: The path ${oldS} does not exist`);
    if (dest.isRoot()) throw new Fail(`Error: The destination ${newS} already exists`);
    if (dest.trailing && kind !== 'dir') {
      throw new Fail(`Error: Cannot rename ${oldS} to ${newS}: the destination ends with a slash, which names a folder, and ${oldS} is a file.`);
    }
    const fault = this.parents(dest.parts);
    if (fault === null && this.kind(dest.parts) !== 'missing') throw new Fail(`Error: The destination ${newS} already exists`); // never overwrites
    if (fault && fault[0] === 'notdir') throw new Fail(`Error: Cannot rename to ${newS}: ${dest.key(fault[1])} is not a folder.`);
    const inside = old.parts.every((s, i) => dest.parts[i] === s);
    if (kind === 'dir' && inside) throw new Fail(`Error: Cannot move ${oldS} into itself (${newS}).`);
    this.parents(dest.parts, true);
    const moved = this.subtree(old.parts);
    for (const [key] of moved) this.m.remove(key);
    for (const [key, text] of moved) this.m.put(dest.key() + key.slice(old.key().length), text);
    return `Successfully renamed ${oldS} to ${newS}`;
  }
}

// --- the handler ---------------------------------------------------------------------------

/** A handler for one user of the store in `state`: `handle(input)` returns the text of a
 * success, or `{ content, is_error: true }`; `handle.reset()` forgets every memory of that
 * user (and only theirs). */
export function makeStore({ state, user }) {
  const folder = state || process.env.MEMSPEC_STATE;
  if (!folder) throw new Error("makeStore() needs the store's folder: memspec passes { state } (MEMSPEC_STATE)");
  const store = new JsonFile(folder);
  const id = user ?? '';
  const handle = (input) => {
    try {
      return store.command((doc, changed) => new Commands(new Memories(doc, changed, id)).run(input));
    } catch (e) {
      if (e instanceof Fail) return { content: e.message, is_error: true };
      throw e; // a bug or a broken disk: the SDK's runner answers `Error: ${message}`
    }
  };
  handle.reset = () =>
    store.command((doc, changed) => {
      if (Object.hasOwn(doc.users, id)) {
        delete doc.users[id];
        changed.push(id);
      }
    });
  return handle;
}
