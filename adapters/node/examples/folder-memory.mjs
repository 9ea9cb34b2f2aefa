// A memory store on a folder, for Claude's memory tool (`memory_20250818`): the shared core of the
// handler-function examples (handle-input.mjs, handle-async.mjs, handle-tool-use.mjs).
//
// `new FolderMemory(folder).run(input)` returns the result text of one command or throws a
// `CommandError` whose `text` is the error Claude should read; each example turns that into the
// shape it shows. The strings are the memory tool page's own (`Error: ` prefixes exactly as the
// page writes them); where the page is silent the wording is this file's. No dependencies.
//
// Safety, which the page makes a MUST: every path must be `/memories` or below it, with no
// `.`/`..` segment, backslash, control character or percent-encoded traversal; a symbolic link is
// never followed (a path through one is refused; delete and rename act on the link itself); FIFOs
// and other special files are never opened; edits go through a temporary file renamed into place,
// so a hard link planted from outside is never written through; create and rename never replace
// anything; `/memories` itself can be neither deleted nor renamed.
//
// Planted bugs, for trying memspec: MEMSPEC_EXAMPLE_BUG=<one of BUGS>.

import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';

const ROOT = '/memories';
const COMMANDS = ['view', 'create', 'str_replace', 'insert', 'delete', 'rename'];
// The writers' lock (see FolderMemory.locked), a wait of a few milliseconds between tries, and
// the age past which a lock is a dead holder's.
const LOCK_NAME = '.memory-lock';
const PAUSE = new Int32Array(new SharedArrayBuffer(4));
const LOCK_STALE_MS = 10_000;
const MAX_LINES = 999_999;
const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK } = fs.constants;

export const BUGS = {
  'create-appends-newline': 'create writes file_text plus a newline',
  'rename-overwrites': 'rename replaces an existing destination',
  'replace-expands-dollar': 'str_replace uses String.prototype.replace, which expands $& and $$ in new_str',
};
const bug = (name) => process.env.MEMSPEC_EXAMPLE_BUG === name;

export class CommandError extends Error {
  constructor(text) {
    super(text);
    this.text = text;
  }
}

const typeName = (v) =>
  v === null ? 'null'
  : typeof v === 'boolean' ? 'a boolean'
  : typeof v === 'number' ? (Number.isInteger(v) ? 'an integer' : 'a non-integer number')
  : typeof v === 'string' ? 'a string'
  : Array.isArray(v) ? 'an array'
  : 'an object';

function size(n) {
  if (n < 1024) return `${n}B`;
  let value = n;
  for (const unit of 'KMGTPE') {
    value /= 1024;
    if (Math.round(value * 10) / 10 < 1024 || unit === 'E') return `${value.toFixed(1)}${unit}`;
  }
}

// A final newline ends the last line; it does not start an empty one.
function linesOf(text) {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

const numbered = (lines, first) => lines.map((line, i) => `${String(first + i).padStart(6)}\t${line}`).join('\n');
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const traverses = (s) => s === '.' || s === '..' || /[/\\\u0000]/.test(s);
// What a segment looks like: compatibility forms folded (`．` is `.`), slash look-alikes too.
const fold = (s) => s.normalize('NFKC').replace(/[\u2215\u2044\u29f8]/g, '/').replace(/[\u2216\u29f9]/g, '\\');
const bytes = (s) => Buffer.byteLength(s, 'utf8');
// A path with a control character, escaped so that the message stays printable.
function printable(p) {
  if (!CONTROL.test(p)) return p;
  const simple = { '\t': '\\t', '\r': '\\r', '\n': '\\n', '\\': '\\\\', "'": "\\'", '"': '\\"' };
  return [...p]
    .map((c) => simple[c] ?? (c >= ' ' && c <= '~' ? c : `\\u{${c.codePointAt(0).toString(16)}}`))
    .join('');
}
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lexists = (host) => {
  try {
    fs.lstatSync(host);
    return true;
  } catch {
    return false;
  }
};
const byName = (a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b));
const viaLink = (p, link) =>
  new CommandError(`Error: The path ${p} goes through the symbolic link ${link}; the memory tool does not follow symbolic links.`);

function decodeOnce(s) {
  try {
    return decodeURIComponent(s);
  } catch {
    return s.replace(/%([0-9a-fA-F]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
  }
}

export class FolderMemory {
  constructor(folder) {
    this.folder = path.resolve(folder);
    fs.mkdirSync(this.folder, { recursive: true, mode: 0o700 });
  }

  // -- input ------------------------------------------------------------------------------------

  run(input) {
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      throw new CommandError(`Error: The tool input must be a JSON object, got ${typeName(input)}.`);
    }
    if (!('command' in input)) throw new CommandError('Error: Missing required parameter `command`.');
    const { command } = input;
    if (typeof command !== 'string') {
      throw new CommandError(`Error: Parameter \`command\` must be a string, got ${typeName(command)}.`);
    }
    if (!COMMANDS.includes(command)) {
      throw new CommandError(`Error: Unknown command \`${command}\`. Valid commands are: ${COMMANDS.join(', ')}.`);
    }
    if (command === 'view') return this.view(input);
    return this.locked(() => this[command](input));
  }

  // One writer at a time, across processes too: str_replace and insert read the file, edit it
  // and write it back, and two agents doing that at once would each undo the other's edit. Node
  // has no flock, so the lock is a hidden folder (never listed) that only one process can make;
  // one older than LOCK_STALE_MS was left by a holder that died, and is taken over.
  locked(work) {
    const lock = path.join(this.folder, LOCK_NAME);
    for (;;) {
      try {
        fs.mkdirSync(lock);
        break;
      } catch (e) {
        if (e.code !== 'EEXIST') throw e;
        try {
          if (Date.now() - fs.statSync(lock).mtimeMs > LOCK_STALE_MS) fs.rmdirSync(lock);
        } catch {
          // Released (or taken over) meanwhile: try again.
        }
        Atomics.wait(PAUSE, 0, 0, 2);
      }
    }
    try {
      return work();
    } finally {
      fs.rmdirSync(lock);
    }
  }

  field(input, name, kind, optional = false) {
    if (!(name in input) || (optional && input[name] == null)) {
      if (optional) return undefined;
      throw new CommandError(`Error: Missing required parameter \`${name}\` for command \`${input.command}\`.`);
    }
    const value = input[name];
    const ok = kind === 'integer' ? Number.isInteger(value) : typeof value === 'string';
    if (!ok) {
      const want = kind === 'integer' ? 'an integer' : 'a string';
      throw new CommandError(`Error: Parameter \`${name}\` must be ${want}, got ${typeName(value)}.`);
    }
    return value;
  }

  // -- paths ------------------------------------------------------------------------------------

  // The names below /memories, after checking the path's grammar.
  segments(p) {
    const invalid = (why) => new CommandError(`Error: The path ${printable(p)} is not a valid memory path: ${why}.`);
    if (CONTROL.test(p)) throw invalid('control characters such as NUL are not allowed');
    if (p.includes('\\')) throw invalid('backslashes are not allowed');
    if (p !== ROOT && !p.startsWith(ROOT + '/')) throw invalid('memory paths must be /memories or start with /memories/');
    if (bytes(p) > 4096) throw invalid('it is longer than 4096 bytes');
    const segments = p.slice(ROOT.length).split('/').filter(Boolean);
    for (const segment of segments) {
      if (segment === '.' || segment === '..') throw invalid('`.` and `..` segments are not allowed');
      let decoded = segment;
      for (let round = 0; round < 3; round++) {
        decoded = decodeOnce(decoded); // %2e%2e, %252e%252e, ...
        if (traverses(decoded)) throw invalid('percent-encoded dots, slashes, backslashes and NUL are not allowed');
      }
      if (traverses(fold(segment))) throw invalid('characters that look like dots, slashes or backslashes are not allowed');
      if (bytes(segment) > 255) throw invalid('a path segment is longer than 255 bytes');
    }
    return segments;
  }

  host(segments) {
    return path.join(this.folder, ...segments);
  }

  // lstat of the path's last component, or undefined when it is missing. Every component before it
  // must be a real folder: a symbolic link on the way is refused, never followed.
  walk(p, segments) {
    let current = this.folder;
    for (let i = 0; i < segments.length; i++) {
      current = path.join(current, segments[i]);
      let st;
      try {
        st = fs.lstatSync(current);
      } catch (e) {
        if (e.code === 'ENOENT' || e.code === 'ENOTDIR') return undefined;
        throw new CommandError(`Error: Cannot look up ${p}: ${e.code}`);
      }
      if (i === segments.length - 1) return st;
      if (st.isSymbolicLink()) throw viaLink(p, `${ROOT}/${segments.slice(0, i + 1).join('/')}`);
      if (!st.isDirectory()) return undefined;
    }
    return fs.lstatSync(this.folder);
  }

  // The text of a regular file; `missing` is the error for a path that is not a file.
  readText(p, segments, missing) {
    const st = this.walk(p, segments);
    if (!st || st.isDirectory() || p.endsWith('/')) throw new CommandError(missing);
    if (st.isSymbolicLink()) throw viaLink(p, `${ROOT}/${segments.join('/')}`);
    if (!st.isFile()) throw new CommandError(`Error: The path ${p} is not a regular file or folder.`);
    if (st.nlink > 1) {
      // Another name of this file may lie outside /memories.
      throw new CommandError(
        `Error: The file ${p} has other hard links, which may lie outside /memories; the memory tool does not read or edit it.`,
      );
    }
    let data;
    try {
      const fd = fs.openSync(this.host(segments), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
      try {
        data = fs.readFileSync(fd);
      } finally {
        fs.closeSync(fd);
      }
    } catch (e) {
      throw new CommandError(`Error: Cannot read ${p}: ${e.code}`);
    }
    try {
      return utf8.decode(data);
    } catch {
      throw new CommandError(
        `Error: The file ${p} is not valid UTF-8 text; the memory tool only reads and edits UTF-8 text files.`,
      );
    }
  }

  // Write through a temporary file renamed into place: never through a hard link.
  replaceFile(segments, text) {
    const host = this.host(segments);
    const tmp = path.join(path.dirname(host), `.memory-tmp-${crypto.randomBytes(6).toString('hex')}`);
    try {
      fs.writeFileSync(tmp, text, { flag: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600 });
      fs.renameSync(tmp, host);
    } catch (e) {
      fs.rmSync(tmp, { force: true });
      throw new CommandError(`Error: Cannot write the file: ${e.code}`);
    }
  }

  makeParents(p, parents, what) {
    let current = this.folder;
    for (let i = 0; i < parents.length; i++) {
      current = path.join(current, parents[i]);
      const shown = `${ROOT}/${parents.slice(0, i + 1).join('/')}`;
      let st;
      try {
        st = fs.lstatSync(current);
      } catch {
        try {
          fs.mkdirSync(current, { mode: 0o700 });
        } catch (e) {
          if (e.code !== 'EEXIST') throw new CommandError(`${what}: ${e.code}`);
        }
        continue;
      }
      if (st.isSymbolicLink()) throw viaLink(p, shown);
      if (!st.isDirectory()) throw new CommandError(`${what}: ${shown} is not a folder.`);
    }
  }

  // -- commands ---------------------------------------------------------------------------------

  view(input) {
    const p = this.field(input, 'path', 'string');
    const range = input.view_range;
    const segments = this.segments(p);
    const st = this.walk(p, segments);
    if (st?.isDirectory()) {
      if (range != null) {
        throw new CommandError('Error: The `view_range` parameter is not allowed when `path` points to a directory.');
      }
      return this.listing(p, segments);
    }
    let lines = linesOf(this.readText(p, segments, `The path ${p} does not exist. Please provide a valid path.`));
    if (lines.length > MAX_LINES) throw new CommandError(`File ${p} exceeds maximum line limit of 999,999 lines.`);
    let first = 1;
    if (range != null) {
      if (!Array.isArray(range) || range.length !== 2 || !range.every(Number.isInteger)) {
        throw new CommandError('Error: Invalid `view_range`. It should be a list of two integers.');
      }
      const [start, end] = range;
      const n = lines.length;
      const bad = (what) => new CommandError(`Error: Invalid \`view_range\`: [${start}, ${end}]. ${what}`);
      if (start < 1 || start > n) throw bad(`Its first element \`${start}\` should be within the range of lines of the file: [1, ${n}]`);
      if (end > n) throw bad(`Its second element \`${end}\` should be smaller than the number of lines in the file: \`${n}\``);
      if (end !== -1 && end < start) throw bad(`Its second element \`${end}\` should be larger or equal than its first \`${start}\``);
      first = start;
      lines = end === -1 ? lines.slice(start - 1) : lines.slice(start - 1, end);
    }
    const header = `Here's the content of ${p} with line numbers:`;
    return lines.length ? `${header}\n${numbered(lines, first)}` : header;
  }

  listing(p, segments) {
    const canonical = ROOT + segments.map((s) => '/' + s).join('');
    const rows = [];
    // Names as bytes: one that is not UTF-8 cannot be spelled by Claude, so it is not listed.
    const entries = (host) => {
      let names;
      try {
        names = fs.readdirSync(host, { encoding: 'buffer' });
      } catch {
        return [];
      }
      const out = [];
      for (const raw of names) {
        let name;
        try {
          name = utf8.decode(raw);
        } catch {
          continue;
        }
        if (name.startsWith('.') || name === 'node_modules') continue;
        let st;
        try {
          st = fs.lstatSync(path.join(host, name));
        } catch {
          continue;
        }
        if (st.isDirectory() || st.isFile()) out.push({ name, st }); // no links, FIFOs, sockets, devices
      }
      return out.sort((a, b) => byName(a.name, b.name));
    };
    const total = (host) =>
      entries(host).reduce((sum, e) => sum + (e.st.isDirectory() ? total(path.join(host, e.name)) : e.st.size), 0);
    const walk = (host, shown, depth) => {
      for (const { name, st } of entries(host)) {
        const child = `${shown}/${name}`;
        const childHost = path.join(host, name);
        if (st.isDirectory()) {
          rows.push(`${size(total(childHost))}\t${child}/`);
          if (depth < 2) walk(childHost, child, depth + 1);
        } else {
          rows.push(`${size(st.size)}\t${child}`);
        }
      }
    };
    const host = this.host(segments);
    rows.push(`${size(total(host))}\t${canonical}`);
    walk(host, canonical, 1);
    return `Here're the files and directories up to 2 levels deep in ${p}, excluding hidden items and node_modules:\n${rows.join('\n')}`;
  }

  create(input) {
    const p = this.field(input, 'path', 'string');
    let fileText = this.field(input, 'file_text', 'string');
    const segments = this.segments(p);
    if (!segments.length) throw new CommandError(`Error: File ${p} already exists`);
    if (p.endsWith('/')) throw new CommandError(`Error: The path ${p} ends with a slash; create makes files, not folders.`);
    this.makeParents(p, segments.slice(0, -1), `Error: Cannot create ${p}`);
    if (bug('create-appends-newline')) fileText += '\n';
    try {
      // O_EXCL | O_NOFOLLOW: never replaces anything, never writes through a planted link.
      fs.writeFileSync(this.host(segments), fileText, { flag: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600 });
    } catch (e) {
      if (e.code === 'EEXIST' || e.code === 'ELOOP') throw new CommandError(`Error: File ${p} already exists`);
      throw new CommandError(`Error: Cannot create ${p}: ${e.code}`);
    }
    return `File created successfully at: ${p}`;
  }

  str_replace(input) {
    const p = this.field(input, 'path', 'string');
    const oldStr = this.field(input, 'old_str', 'string');
    const newStr = this.field(input, 'new_str', 'string', true) ?? '';
    const segments = this.segments(p);
    const text = this.readText(p, segments, `Error: The path ${p} does not exist. Please provide a valid path.`);
    if (oldStr === '') throw new CommandError(`Error: No replacement was performed on ${p}: \`old_str\` must not be empty.`);
    const starts = [];
    for (let at = text.indexOf(oldStr); at !== -1; at = text.indexOf(oldStr, at + 1)) starts.push(at);
    const lineOf = (at) => text.slice(0, at).split('\n').length;
    if (!starts.length) {
      throw new CommandError(`No replacement was performed, old_str \`${oldStr}\` did not appear verbatim in ${p}.`);
    }
    if (starts.length > 1) {
      const numbers = [...new Set(starts.map(lineOf))].sort((a, b) => a - b);
      throw new CommandError(
        `No replacement was performed. Multiple occurrences of old_str \`${oldStr}\` in lines: ${numbers.join(', ')}. Please ensure it is unique`,
      );
    }
    const newText =
      bug('replace-expands-dollar') ?
        text.replace(oldStr, newStr) // the first occurrence, but `$&`, `$$`, `$'` in newStr are patterns
      : text.slice(0, starts[0]) + newStr + text.slice(starts[0] + oldStr.length);
    this.replaceFile(segments, newText);
    // A snippet of the edited file: 4 lines before the change to 4 lines after it.
    const firstLine = lineOf(starts[0]) - 1;
    const lastLine = firstLine + newStr.split('\n').length - 1;
    const lines = linesOf(newText);
    const lo = Math.max(0, firstLine - 4);
    const snippet = numbered(lines.slice(lo, Math.min(lines.length, lastLine + 5)), lo + 1);
    return 'The memory file has been edited.' + (snippet ? '\n' + snippet : '');
  }

  insert(input) {
    const p = this.field(input, 'path', 'string');
    const insertLine = this.field(input, 'insert_line', 'integer');
    let insertText = this.field(input, 'insert_text', 'string');
    const segments = this.segments(p);
    const text = this.readText(p, segments, `Error: The path ${p} does not exist`);
    const lines = linesOf(text);
    if (insertLine < 0 || insertLine > lines.length) {
      throw new CommandError(
        `Error: Invalid \`insert_line\` parameter: ${insertLine}. It should be within the range of lines of the file: [0, ${lines.length}]`,
      );
    }
    if (insertText) {
      let before = lines.slice(0, insertLine).map((l) => l + '\n').join('');
      let after = text.slice(before.length);
      if (before === text && text && !text.endsWith('\n')) [before, after] = [text + '\n', '']; // after a last line without a newline
      if (after && !insertText.endsWith('\n')) insertText += '\n';
      this.replaceFile(segments, before + insertText + after);
    }
    return `The file ${p} has been edited.`;
  }

  delete(input) {
    const p = this.field(input, 'path', 'string');
    const segments = this.segments(p);
    if (!segments.length) throw new CommandError('Error: Cannot delete the /memories directory itself');
    const st = this.walk(p, segments);
    if (st?.isSymbolicLink() && p.endsWith('/')) throw viaLink(p, `${ROOT}/${segments.join('/')}`);
    if (!st || (p.endsWith('/') && !st.isDirectory())) throw new CommandError(`Error: The path ${p} does not exist`);
    try {
      // fs.rm works on lstat: a link is removed itself, never followed, inside a folder or not.
      fs.rmSync(this.host(segments), { recursive: true, force: false });
    } catch (e) {
      throw new CommandError(`Error: Cannot delete ${p}: ${e.code}`);
    }
    return `Successfully deleted ${p}`;
  }

  rename(input) {
    const oldPath = this.field(input, 'old_path', 'string');
    const newPath = this.field(input, 'new_path', 'string');
    const [from, to] = [this.segments(oldPath), this.segments(newPath)];
    if (!from.length) throw new CommandError('Error: Cannot rename the /memories directory itself');
    const st = this.walk(oldPath, from);
    if (st?.isSymbolicLink() && oldPath.endsWith('/')) throw viaLink(oldPath, `${ROOT}/${from.join('/')}`);
    if (!st || (oldPath.endsWith('/') && !st.isDirectory())) throw new CommandError(`Error: The path ${oldPath} does not exist`);
    const existing = this.walk(newPath, to);
    if (existing && !(bug('rename-overwrites') && !existing.isDirectory())) {
      throw new CommandError(`Error: The destination ${newPath} already exists`);
    }
    if (from.every((s, i) => to[i] === s)) throw new CommandError(`Error: Cannot move ${oldPath} into itself (${newPath}).`);
    if (newPath.endsWith('/') && !st.isDirectory()) {
      throw new CommandError(
        `Error: Cannot rename ${oldPath} to ${newPath}: the destination ends with a slash, which names a folder, and ${oldPath} is a file.`,
      );
    }
    this.makeParents(newPath, to.slice(0, -1), `Error: Cannot rename to ${newPath}`);
    const target = this.host(to);
    try {
      // Never overwrite: a destination that appeared meanwhile is refused (unless the planted bug).
      if (!bug('rename-overwrites') && lexists(target)) throw Object.assign(new Error(), { code: 'EEXIST' });
      fs.renameSync(this.host(from), target);
    } catch (e) {
      if (e.code === 'EEXIST') throw new CommandError(`Error: The destination ${newPath} already exists`);
      throw new CommandError(`Error: Cannot rename ${oldPath}: ${e.code}`);
    }
    return `Successfully renamed ${oldPath} to ${newPath}`;
  }
}
