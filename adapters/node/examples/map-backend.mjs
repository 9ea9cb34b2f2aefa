// An in-memory memory-tool backend for the TypeScript SDK's `betaMemoryTool`: files in a Map keyed
// by virtual path, directories implied by the files under them. Deliberately small; it exists to
// show the three TARGET shapes the adapter accepts:
//
//   node adapters/node/memspec-adapter.mjs adapters/node/examples/map-backend.mjs:tool    --base {base}
//   node adapters/node/memspec-adapter.mjs adapters/node/examples/map-backend.mjs:handlers --base {base}
//   node adapters/node/memspec-adapter.mjs adapters/node/examples/map-backend.mjs:makeTool --base {base}
//
// It keeps its memories in a Map, not in the folder memspec gives it, so run the suite with
// `--not-on-folder`, and through `:makeTool`, the one shape the adapter can rebuild on `reset`
// (adapters/node/README.md, "Example", has the measured counts and what still fails):
//
//   memspec check --not-on-folder --backend 'node adapters/node/memspec-adapter.mjs adapters/node/examples/map-backend.mjs:makeTool --base {base}'
//
// Errors are thrown as plain Errors, as the SDK's own filesystem tool does, so the runner
// prefixes them with `Error: `; a ToolError would reach the model verbatim.
import { betaMemoryTool } from '@anthropic-ai/sdk/helpers/beta/memory';
import { ToolError } from '@anthropic-ai/sdk/lib/tools/ToolError';
import path from 'node:path';

const ROOT = '/memories';

export function createHandlers() {
  const files = new Map();

  const norm = (p) => {
    if (typeof p !== 'string' || !p.startsWith('/')) throw new Error(`Invalid path ${p}`);
    const n = path.posix.normalize(p).replace(/\/+$/, '') || '/';
    if (n !== ROOT && !n.startsWith(ROOT + '/')) throw new Error(`The path ${p} is outside /memories`);
    return n;
  };
  const isDir = (p) => p === ROOT || [...files.keys()].some((f) => f.startsWith(p + '/'));
  const exists = (p) => files.has(p) || isDir(p);
  const numbered = (lines, start = 1) =>
    lines.map((l, i) => `${String(i + start).padStart(6)}\t${l}`).join('\n');
  const linesOf = (text) => {
    const lines = text.split('\n');
    if (lines.length > 1 && lines.at(-1) === '') lines.pop();
    return lines;
  };

  return {
    view({ path: p, view_range }) {
      const n = norm(p);
      if (files.has(n)) {
        const lines = linesOf(files.get(n));
        const [a, b] = Array.isArray(view_range) && view_range.length === 2 ? view_range : [1, -1];
        const start = Math.max(1, a);
        const end = b === -1 ? lines.length : Math.min(b, lines.length);
        return `Here's the content of ${p} with line numbers:\n${numbered(lines.slice(start - 1, end), start)}`;
      }
      if (!isDir(n)) throw new ToolError(`The path ${p} does not exist. Please provide a valid path.`);
      const entries = new Set();
      for (const f of files.keys()) {
        if (!f.startsWith(n + '/')) continue;
        const parts = f.slice(n.length + 1).split('/');
        for (const depth of [1, 2]) {
          const head = parts.slice(0, depth);
          if (parts.length >= depth && !head.some((s) => s.startsWith('.') || s === 'node_modules')) {
            entries.add(head.join('/'));
          }
        }
      }
      const size = (q) =>
        files.has(q) ? Buffer.byteLength(files.get(q))
        : [...files].filter(([k]) => k.startsWith(q + '/')).reduce((s, [, v]) => s + Buffer.byteLength(v), 0);
      const human = (b) => (b < 1024 ? `${b}B` : `${(b / 1024).toFixed(1)}K`);
      const out = [`${human(size(n))}\t${p}`, ...[...entries].sort().map((r) => `${human(size(`${n}/${r}`))}\t${n}/${r}`)];
      return `Here're the files and directories up to 2 levels deep in ${p}, excluding hidden items and node_modules:\n${out.join('\n')}`;
    },
    create({ path: p, file_text }) {
      const n = norm(p);
      if (exists(n)) throw new Error(`File ${p} already exists`);
      files.set(n, String(file_text ?? ''));
      return `File created successfully at: ${p}`;
    },
    str_replace({ path: p, old_str, new_str }) {
      const n = norm(p);
      if (!files.has(n)) throw new Error(`The path ${p} does not exist. Please provide a valid path.`);
      const text = files.get(n);
      const hits = old_str ? text.split(old_str).length - 1 : 0;
      if (hits === 0) throw new ToolError(`No replacement was performed, old_str \`${old_str}\` did not appear verbatim in ${p}.`);
      if (hits > 1) throw new ToolError(`No replacement was performed. Multiple occurrences of old_str \`${old_str}\`. Please ensure it is unique`);
      files.set(n, text.replace(old_str, () => new_str));
      return 'The memory file has been edited.';
    },
    insert({ path: p, insert_line, insert_text }) {
      const n = norm(p);
      if (!files.has(n)) throw new Error(`The path ${p} does not exist`);
      const lines = linesOf(files.get(n));
      if (!Number.isInteger(insert_line) || insert_line < 0 || insert_line > lines.length) {
        throw new Error(`Invalid \`insert_line\` parameter: ${insert_line}. It should be within the range of lines of the file: [0, ${lines.length}]`);
      }
      lines.splice(insert_line, 0, ...linesOf(String(insert_text)));
      files.set(n, lines.join('\n') + '\n');
      return `The file ${p} has been edited.`;
    },
    delete({ path: p }) {
      const n = norm(p);
      if (n === ROOT) throw new Error('Cannot delete the /memories directory itself');
      if (!exists(n)) throw new Error(`The path ${p} does not exist`);
      for (const f of [...files.keys()]) if (f === n || f.startsWith(n + '/')) files.delete(f);
      return `Successfully deleted ${p}`;
    },
    rename({ old_path, new_path }) {
      const o = norm(old_path);
      const d = norm(new_path);
      if (o === ROOT) throw new Error('Cannot rename the /memories directory itself');
      if (!exists(o)) throw new Error(`The path ${old_path} does not exist`);
      if (exists(d)) throw new Error(`The destination ${new_path} already exists`);
      for (const [f, v] of [...files]) {
        if (f === o || f.startsWith(o + '/')) {
          files.delete(f);
          files.set(d + f.slice(o.length), v);
        }
      }
      return `Successfully renamed ${old_path} to ${new_path}`;
    },
  };
}

/** A plain object of handlers (the adapter wraps it with betaMemoryTool). */
export const handlers = createHandlers();
/** A ready runnable tool, as passed to `client.beta.messages.toolRunner({ tools: [tool] })`. */
export const tool = betaMemoryTool(createHandlers());
/** An async factory: the adapter calls it with `{ base, memories }`, and again on every reset. */
export async function makeTool({ base, memories }) {
  return betaMemoryTool(createHandlers());
}
