#!/usr/bin/env python3
"""A correct key-value backend of Claude's memory tool (`memory_20250818`), protocol v1.

The base of the deliberately broken backends in this folder: each of them is a short subclass
of `KVMemory` that overrides one small method with one realistic bug. This base follows the
reference (`memspec serve`) wherever the spec leaves a point open (spec/decisions.json), so a
broken backend differs from the reference only by its bug.

    python3 tests/backends/kv/correct.py [--shared [--user USER]] [--revision ga-2026|beta-2025] {memories}

Storage: a flat map of key -> bytes, never the `{memories}` folder (run `memspec check` with
`--not-on-folder`). A file is the key of its canonical path (`/memories/a/b.txt`); a folder is
a marker key ending in `/` (`/memories/a/`), written for every folder create or rename makes,
so an emptied folder stays (as on the reference's disk). Every folder is a marker, so a folder
exists exactly when its marker does.

- default: an in-process dict (one client).
- `--shared`: a SQLite file shared by every process started on the same `{memories}`:
  `$MEMSPEC_KV_DIR` (default: the system temp dir) /
  `memspec-kv-<first 16 hex of sha256(abspath(memories))>.sqlite`. Every command is one
  `BEGIN IMMEDIATE` transaction, so several processes on one store lose no update and never
  both create one path. The file is left behind on exit (other processes may still use it);
  `reset` empties it (and, with auto_vacuum, shrinks it to a few KiB).
- `--file PATH`: `--shared`, with the SQLite file at exactly PATH (`--file {state}/kv.sqlite`:
  the backend's own folder, new with every sandbox).
- `--shared --user USER`: one user of that shared file, each user's keys behind a namespace of
  their own (`UserStore`); `reset` empties that user's keys only. Run as
  `correct.py --shared --user {user} {memories}` for the users lane.

The revision: a backend is not told which one a run judges by, so `--revision` picks it
(default ga-2026, memspec's default). Under ga-2026 a view of a file over 16,000 characters is
cut at whole lines with the reference's notice (decide.long-views); under beta-2025 nothing is
cut. Both are allowed by either revision (cases/ga-views.json is INFO only).

Standard library only (Python 3.11).
"""

import base64
import contextlib
import hashlib
import json
import os
import re
import sqlite3
import sys
import tempfile
import unicodedata

sys.set_int_max_str_digits(0)

ROOT = "/memories"
MAX_LINES = 999_999
VIEW_CHAR_BUDGET = 16_000
MAX_IMAGE_BYTES = 3_932_160
MAX_PATH_BYTES = 4096
MAX_COMPONENT_BYTES = 255
COMMANDS = ("view", "create", "str_replace", "insert", "delete", "rename")
SNIPPET_CONTEXT = 4


class Fail(Exception):
    """An error answer (is_error true) with its text."""


# ------------------------------------------------------------------------------ messages


def thousands(n):
    return f"{n:,}"


def json_type(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, int):
        return "an integer"
    if isinstance(v, float):
        return "a non-integer number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "an array"
    return "an object"


def is_control(c):
    return unicodedata.category(c) == "Cc"


def printable(path):
    """Rust's char::escape_default on control characters only (the reference's `printable`)."""
    if not any(is_control(c) for c in path):
        return path
    out = []
    for c in path:
        if not is_control(c):
            out.append(c)
        elif c == "\t":
            out.append("\\t")
        elif c == "\r":
            out.append("\\r")
        elif c == "\n":
            out.append("\\n")
        else:
            out.append("\\u{%x}" % ord(c))
    return "".join(out)


def human_size(n):
    if n < 1024:
        return f"{n}B"
    units = "KMGTPE"
    value = n / 1024.0
    unit = 0
    while value >= 1023.95 and unit + 1 < len(units):
        value /= 1024.0
        unit += 1
    return f"{value:.1f}{units[unit]}"


# ---------------------------------------------------------------------------------- paths

LOOKALIKES = {
    "\u2024": ".", "\ufe52": ".", "\uff0e": ".", "\u2025": ".", "\ufe30": ".", "\u2026": ".",
    "\ufe19": ".", "\u2e33": ".",
    "\u2100": "/", "\u2101": "/", "\u2105": "/", "\u2106": "/", "\uff0f": "/",
    "\u2044": "/", "\u2215": "/", "\u29f8": "/", "\u1735": "/",
    "\ufe68": "\\", "\uff3c": "\\", "\u2216": "\\", "\u29f9": "\\",
}

REASONS = {
    "outside": "memory paths must be /memories or start with /memories/",
    "dot": "`.` and `..` segments are not allowed",
    "backslash": "backslashes are not allowed",
    "control": "control characters such as NUL are not allowed",
    "encoded": "percent-encoded dots, slashes, backslashes and NUL are not allowed",
    "lookalike": "characters that look like dots, slashes or backslashes are not allowed",
    "long": "it is longer than 4096 bytes",
    "component": "a path segment is longer than 255 bytes",
}

HEX = "0123456789abcdefABCDEF"


def percent_decode_once(s):
    b = s.encode("utf-8", "surrogatepass")
    out = bytearray()
    changed = False
    i = 0
    while i < len(b):
        if b[i] == 0x25 and i + 2 < len(b) and chr(b[i + 1]) in HEX and chr(b[i + 2]) in HEX:
            out.append(int(b[i + 1 : i + 3].decode(), 16))
            i += 3
            changed = True
            continue
        out.append(b[i])
        i += 1
    if not changed:
        return None
    return out.decode("utf-8", "replace")


def traversal_like(s):
    return s in (".", "..") or "/" in s or "\\" in s or "\0" in s


def check_component(c):
    if c in (".", ".."):
        return "dot"
    if len(c.encode("utf-8", "surrogatepass")) > MAX_COMPONENT_BYTES:
        return "component"
    decoded = c
    for _ in range(3):
        nxt = percent_decode_once(decoded)
        if nxt is None:
            break
        if traversal_like(nxt):
            return "encoded"
        decoded = nxt
    if any(ch in LOOKALIKES for ch in c):
        folded = "".join(LOOKALIKES.get(ch, ch) for ch in c)
        if traversal_like(folded) or "/" in folded:
            return "lookalike"
    return None


class Path:
    """A parsed memory path: its components, its trailing slash, and how it was spelled."""

    def __init__(self, spelled):
        if any(is_control(c) for c in spelled):
            why = "control"
        elif "\\" in spelled:
            why = "backslash"
        elif len(spelled.encode("utf-8", "surrogatepass")) > MAX_PATH_BYTES:
            why = "long"
        elif not (spelled == ROOT or spelled.startswith(ROOT + "/")):
            why = "outside"
        else:
            why = None
        comps = []
        if why is None:
            rest = spelled[len(ROOT):]
            for c in rest.split("/"):
                if not c:
                    continue
                why = check_component(c)
                if why:
                    break
                comps.append(c)
        if why:
            raise Fail(f"Error: The path {printable(spelled)} is not a valid memory path: "
                       f"{REASONS[why]}.")
        self.spelled = spelled
        self.comps = tuple(comps)
        rest = spelled[len(ROOT):]
        self.trailing = len(rest) > 1 and rest.endswith("/")

    def is_root(self):
        return not self.comps

    def prefix(self, n):
        return ROOT + "".join("/" + c for c in self.comps[:n])

    def canonical(self):
        return self.prefix(len(self.comps))


# ----------------------------------------------------------------------------------- text


def line_count(b):
    n = b.count(b"\n")
    return n if (not b or b.endswith(b"\n")) else n + 1


def split_lines(b):
    """The reference's lines(): a final newline ends the last line, no empty line after it."""
    if not b:
        return []
    parts = b.split(b"\n")
    if b.endswith(b"\n"):
        parts.pop()
    return parts


def line_start(b, n):
    if n <= 1:
        return 0
    i = -1
    for _ in range(n - 1):
        i = b.find(b"\n", i + 1)
        if i == -1:
            return len(b)
    return i + 1


def numbered(lines, first):
    return "".join(f"\n{n:>6}\t{line}" for n, line in enumerate(lines, first))


# -------------------------------------------------------------------------------- stores


class DictStore:
    """An in-process dict of key -> bytes. One client only."""

    name = "dict"

    def __init__(self):
        self.d = {}

    @contextlib.contextmanager
    def txn(self):
        yield

    def get(self, k):
        return self.d.get(k)

    def put(self, k, v):
        self.d[k] = bytes(v)

    def remove(self, k):
        self.d.pop(k, None)

    def scan(self, prefix):
        """(key, value) of every key starting with prefix, in key (code point) order."""
        return sorted((k, v) for k, v in self.d.items() if k.startswith(prefix))

    def wipe(self):
        self.d.clear()


class SqliteStore:
    """A SQLite file shared by every process on one {memories}; commands are transactions."""

    name = "sqlite"

    def __init__(self, memories, file=None):
        folder = os.environ.get("MEMSPEC_KV_DIR") or tempfile.gettempdir()
        digest = hashlib.sha256(os.path.abspath(memories).encode("utf-8", "surrogateescape"))
        self.file = file or os.path.join(folder, f"memspec-kv-{digest.hexdigest()[:16]}.sqlite")
        self.db = sqlite3.connect(self.file, timeout=60, isolation_level=None)
        self.db.execute("PRAGMA busy_timeout = 60000")
        self.db.execute("PRAGMA auto_vacuum = FULL")  # a reset gives the space back
        try:
            self.db.execute("PRAGMA journal_mode = WAL")
        except sqlite3.OperationalError:
            pass
        self.db.execute("CREATE TABLE IF NOT EXISTS kv (k TEXT PRIMARY KEY, v BLOB NOT NULL)")
        self.depth = 0

    @contextlib.contextmanager
    def txn(self):
        if self.depth:
            self.depth += 1
            try:
                yield
            finally:
                self.depth -= 1
            return
        self.db.execute("BEGIN IMMEDIATE")
        self.depth = 1
        try:
            yield
        except BaseException:
            self.depth = 0
            self.db.execute("ROLLBACK")
            raise
        self.depth = 0
        self.db.execute("COMMIT")

    def get(self, k):
        row = self.db.execute("SELECT v FROM kv WHERE k = ?", (k,)).fetchone()
        return None if row is None else bytes(row[0])

    def put(self, k, v):
        self.db.execute("INSERT OR REPLACE INTO kv (k, v) VALUES (?, ?)", (k, bytes(v)))

    def remove(self, k):
        self.db.execute("DELETE FROM kv WHERE k = ?", (k,))

    def scan(self, prefix):
        rows = self.db.execute("SELECT k, v FROM kv WHERE substr(k, 1, ?) = ?",
                               (len(prefix), prefix)).fetchall()
        return sorted((k, bytes(v)) for k, v in rows)

    def wipe(self):
        with self.txn():
            self.db.execute("DELETE FROM kv")


class UserStore:
    """One user's memories in a store shared by many users (`--user USER`): every key of the
    user is the inner store's key behind the user's namespace. Correct here: the namespace is
    the id's UTF-8 bytes in hex and a `:`, so no id's namespace is a prefix of another's and
    no id is folded, trimmed or read as a pattern. The broken user backends (`../users/`)
    override `namespace` or `scan`."""

    def __init__(self, inner, user):
        self.inner = inner
        self.user = user
        self.ns = self.namespace(user)
        self.name = f"{inner.name}-per-user"

    def namespace(self, user):
        return "user:" + user.encode("utf-8", "surrogateescape").hex() + ":"

    def txn(self):
        return self.inner.txn()

    def get(self, k):
        return self.inner.get(self.ns + k)

    def put(self, k, v):
        self.inner.put(self.ns + k, v)

    def remove(self, k):
        self.inner.remove(self.ns + k)

    def scan(self, prefix):
        n = len(self.ns)
        return [(k[n:], v) for k, v in self.inner.scan(self.ns + prefix)]

    def wipe(self):
        # Only this user's memories: the others' are theirs.
        with self.txn():
            for k, _ in self.scan(""):
                self.remove(k)


# ------------------------------------------------------------------------------- backend


class KVMemory:
    """The memory tool over a flat key-value store. Subclasses override one small method."""

    def __init__(self, store, revision="ga-2026"):
        self.store = store
        self.revision = revision

    def reset(self):
        """Forget every memory (and whatever a subclass keeps beside the store); a subclass
        that cannot returns why, and `reset` is answered no."""
        self.store.wipe()

    # ---- keys and the store (the overridable layer)

    def key(self, comps):
        """The store key of a path's components."""
        return ROOT + "".join("/" + c for c in comps)

    def marker(self, comps):
        return self.key(comps) + "/"

    def size_of(self, value):
        """The size a listing shows for a stored value: its bytes."""
        return len(value)

    def put(self, key, value):
        """Every write of a file's value goes through here."""
        self.store.put(key, value)

    def load(self, key):
        return self.store.get(key)

    def kind_of(self, comps):
        if not comps:
            return "dir"
        if self.store.get(self.key(comps)) is not None:
            return "file"
        if self.store.get(self.marker(comps)) is not None:
            return "dir"
        return "missing"

    def walk_parents(self, comps, make=False):
        """Check (or make) the folders above the last component; None or (why, index)."""
        for i in range(len(comps) - 1):
            kind = self.kind_of(comps[: i + 1])
            if kind == "dir":
                continue
            if kind == "missing" and make:
                self.store.put(self.marker(comps[: i + 1]), b"")
                continue
            return ("notdir" if kind == "file" else "missing", i)
        return None

    def locate(self, path):
        """The kind of what a path names, as the reference's locate(): missing, file or dir."""
        if path.is_root():
            return "dir"
        if self.walk_parents(path.comps):
            return "missing"
        kind = self.kind_of(path.comps)
        if path.trailing and kind == "file":
            return "missing"
        return kind

    def view_lookup(self, path):
        """(kind, value) for a view."""
        kind = self.locate(path)
        return kind, (self.load(self.key(path.comps)) if kind == "file" else None)

    def list_keys(self, prefix):
        """The keys (and values) a listing reads: every key under the folder."""
        return self.store.scan(prefix)

    def subtree(self, comps):
        """(key, value) of a file or a folder and everything under it."""
        items = []
        k = self.key(comps)
        v = self.store.get(k)
        if v is not None:
            items.append((k, v))
        items += self.store.scan(k + "/")
        return items

    def delete_finds(self, path):
        """Whether delete finds something to remove at path."""
        return self.locate(path) != "missing"

    def delete_tree(self, comps):
        for k, _ in self.subtree(comps):
            self.store.remove(k)

    def rename_tree(self, old, new):
        """Move a file or a folder and everything under it, from key to key."""
        ko, kn = self.key(old), self.key(new)
        items = self.subtree(old)
        for k, _ in items:
            self.store.remove(k)
        for k, v in items:
            self.store.put(kn + k[len(ko):], v)

    def destination_taken(self, new):
        return self.kind_of(new.comps) != "missing"

    # ---- the two transactions a race can break

    def create_file(self, path, data):
        with self.store.txn():
            self.create_check(path)
            self.put(self.key(path.comps), data)

    def create_check(self, path):
        """Inside create's transaction: make the parents, refuse an existing path."""
        spelled = path.spelled
        bad = self.walk_parents(path.comps, make=True)
        if bad:
            raise Fail(f"Error: Cannot create {spelled}: {path.prefix(bad[1] + 1)} is not a "
                       f"folder.")
        if self.kind_of(path.comps) != "missing":
            raise Fail(f"Error: File {spelled} already exists")

    def modify(self, path, missing, edit):
        """Read a text file, edit(content) -> (new bytes, answer), write it back: atomic."""
        with self.store.txn():
            content = self.read_text(path, missing)
            result, answer = edit(content)
            self.put(self.key(path.comps), result)
            return answer

    def read_text(self, path, missing):
        if self.locate(path) != "file":
            raise Fail(missing)
        data = self.load(self.key(path.comps))
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            raise Fail(f"Error: The file {path.spelled} is not valid UTF-8 text; the memory tool "
                       f"only reads and edits UTF-8 text files.")
        return data

    # ---- commands

    def call(self, inp):
        if not isinstance(inp, dict):
            raise Fail(f"Error: The tool input must be a JSON object, got {json_type(inp)}.")
        if "command" not in inp:
            raise Fail("Error: Missing required parameter `command`.")
        cmd = inp["command"]
        if not isinstance(cmd, str):
            raise Fail(f"Error: Parameter `command` must be a string, got {json_type(cmd)}.")
        if cmd not in COMMANDS:
            raise Fail(f"Error: Unknown command `{cmd}`. Valid commands are: "
                       f"{', '.join(COMMANDS)}.")
        return getattr(self, "do_" + cmd)(_Fields(inp, cmd))

    def do_view(self, f):
        spelled = f.string("path")
        rng = f.view_range()
        path = Path(spelled)
        with self.store.txn():
            kind, data = self.view_lookup(path)
            if kind == "missing":
                raise Fail(f"The path {spelled} does not exist. Please provide a valid path.")
            if kind == "dir":
                if rng is not None:
                    raise Fail("Error: The `view_range` parameter is not allowed when `path` "
                               "points to a directory.")
                return self.listing(path)
        return self.view_file(path, data, rng)

    def view_file(self, path, data, rng):
        spelled = path.spelled
        if rng is None and has_image_name(path.comps[-1]):
            media = image_type(data)
            if media:
                if len(data) > MAX_IMAGE_BYTES:
                    raise Fail(f"Error: The image {spelled} is {thousands(len(data))} bytes; the "
                               f"memory tool shows images of at most {thousands(MAX_IMAGE_BYTES)} "
                               f"bytes (3.75 MiB), since a larger one exceeds the 5 MB image "
                               f"limit of the Messages API once encoded.")
                return [{"type": "image", "source": {
                    "type": "base64", "media_type": media,
                    "data": base64.b64encode(data).decode("ascii")}}]
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise Fail(f"Error: The file {spelled} is not valid UTF-8 text; the memory tool "
                       f"only reads and edits UTF-8 text files.")
        n = line_count(data)
        if n > MAX_LINES:
            raise Fail(f"File {spelled} exceeds maximum line limit of 999,999 lines.")
        lines = split_lines(text.encode("utf-8"))
        first, last = 1, n
        if rng is not None:
            a, b = rng
            if a < 1 or a > n:
                raise Fail(f"Error: Invalid `view_range`: [{a}, {b}]. Its first element `{a}` "
                           f"should be within the range of lines of the file: [1, {n}]")
            if b > n:
                raise Fail(f"Error: Invalid `view_range`: [{a}, {b}]. Its second element `{b}` "
                           f"should be smaller than the number of lines in the file: `{n}`")
            if b != -1 and b < a:
                raise Fail(f"Error: Invalid `view_range`: [{a}, {b}]. Its second element `{b}` "
                           f"should be larger or equal than its first `{a}`")
            first, last = a, (n if b == -1 else b)
        header = f"Here's the content of {spelled} with line numbers:"
        strs = [l.decode("utf-8") for l in lines]
        if rng is None and self.revision == "ga-2026":
            cut = cut_view(strs, text.endswith("\n"), spelled)
            if cut is not None:
                return header + cut
        return header + numbered(strs[first - 1 : last], first)

    def listing(self, path):
        canonical = path.canonical()
        base = self.key(path.comps) + "/" if path.comps else ROOT + "/"
        tree = {}
        for k, v in self.list_keys(base):
            rel = k[len(base):]
            parts = rel.split("/")
            is_marker = parts[-1] == ""
            if is_marker:
                parts.pop()
            if not parts or any(p.startswith(".") or p == "node_modules" for p in parts):
                continue
            node = tree
            for p in parts[:-1]:
                node = node.setdefault(p, {})
                if not isinstance(node, dict):
                    break
            else:
                last = parts[-1]
                if is_marker:
                    if not isinstance(node.get(last), dict):
                        node.setdefault(last, {})
                elif last not in node:
                    node[last] = self.size_of(v)

        def total(node):
            return sum(total(x) if isinstance(x, dict) else x for x in node.values())

        def ordered(node):
            return sorted(node.items(), key=lambda kv: kv[0].encode("utf-8", "surrogatepass"))

        lines = [f"Here're the files and directories up to 2 levels deep in {path.spelled}, "
                 f"excluding hidden items and node_modules:", f"{human_size(total(tree))}\t{canonical}"]
        for name, x in ordered(tree):
            if isinstance(x, dict):
                lines.append(f"{human_size(total(x))}\t{canonical}/{name}/")
                for name2, y in ordered(x):
                    if isinstance(y, dict):
                        lines.append(f"{human_size(total(y))}\t{canonical}/{name}/{name2}/")
                    else:
                        lines.append(f"{human_size(y)}\t{canonical}/{name}/{name2}")
            else:
                lines.append(f"{human_size(x)}\t{canonical}/{name}")
        return "\n".join(lines)

    def do_create(self, f):
        spelled = f.string("path")
        text = f.string("file_text")
        path = Path(spelled)
        if path.is_root():
            raise Fail(f"Error: File {spelled} already exists")
        if path.trailing:
            raise Fail(f"Error: The path {spelled} ends with a slash; create makes files, not "
                       f"folders.")
        self.create_file(path, encode(text))
        return f"File created successfully at: {spelled}"

    def do_str_replace(self, f):
        spelled = f.string("path")
        old = f.string("old_str")
        new = f.optional_string("new_str") or ""
        path = Path(spelled)
        old_b, new_b = encode(old), encode(new)

        def edit(content):
            if not old_b:
                raise Fail(f"Error: No replacement was performed on {spelled}: `old_str` must "
                           f"not be empty.")
            at = content.find(old_b)
            if at == -1:
                raise Fail(f"No replacement was performed, old_str `{old}` did not appear "
                           f"verbatim in {spelled}.")
            second = content.find(old_b, at + 1)
            if second != -1:
                nums, pos = [], at
                while pos != -1:
                    n = content.count(b"\n", 0, pos) + 1
                    if not nums or nums[-1] != n:
                        nums.append(n)
                    pos = content.find(old_b, pos + 1)
                raise Fail(f"No replacement was performed. Multiple occurrences of old_str "
                           f"`{old}` in lines: {', '.join(map(str, nums))}. Please ensure it "
                           f"is unique")
            edited = content[:at] + new_b + content[at + len(old_b):]
            first = content.count(b"\n", 0, at) + 1
            last = first + new_b.count(b"\n")
            n = line_count(edited)
            lo, hi = max(first - SNIPPET_CONTEXT, 1), min(last + SNIPPET_CONTEXT, n)
            out = "The memory file has been edited."
            if lo <= hi:
                lines = [l.decode("utf-8") for l in split_lines(edited)]
                out += numbered(lines[lo - 1 : hi], lo)
            return edited, out

        return self.modify(path, f"Error: The path {spelled} does not exist. Please provide a "
                                 f"valid path.", edit)

    def do_insert(self, f):
        spelled = f.string("path")
        line = f.integer("insert_line")
        text = encode(f.string("insert_text"))
        path = Path(spelled)

        def edit(content):
            n = line_count(content)
            if line < 0 or line > n:
                raise Fail(f"Error: Invalid `insert_line` parameter: {line}. It should be within "
                           f"the range of lines of the file: [0, {n}]")
            split = line_start(content, line + 1)
            edited = content[:split]
            if edited and not edited.endswith(b"\n") and text:
                edited += b"\n"
            edited += text
            if text and not text.endswith(b"\n") and split < len(content):
                edited += b"\n"
            edited += content[split:]
            return edited, f"The file {spelled} has been edited."

        return self.modify(path, f"Error: The path {spelled} does not exist", edit)

    def do_delete(self, f):
        spelled = f.string("path")
        path = Path(spelled)
        if path.is_root():
            raise Fail("Error: Cannot delete the /memories directory itself")
        with self.store.txn():
            if not self.delete_finds(path):
                raise Fail(f"Error: The path {spelled} does not exist")
            self.delete_tree(path.comps)
        return f"Successfully deleted {spelled}"

    def do_rename(self, f):
        old_s = f.string("old_path")
        new_s = f.string("new_path")
        old, new = Path(old_s), Path(new_s)
        if old.is_root():
            raise Fail("Error: Cannot rename the /memories directory itself")
        with self.store.txn():
            kind = self.locate(old)
            if kind == "missing":
                raise Fail(f"Error: The path {old_s} does not exist")
            if new.is_root():
                raise Fail(f"Error: The destination {new_s} already exists")
            if new.trailing and kind != "dir":
                raise Fail(f"Error: Cannot rename {old_s} to {new_s}: the destination ends with "
                           f"a slash, which names a folder, and {old_s} is a file.")
            bad = self.walk_parents(new.comps)
            if bad is None:
                if self.destination_taken(new):
                    raise Fail(f"Error: The destination {new_s} already exists")
            elif bad[0] == "notdir":
                raise Fail(f"Error: Cannot rename to {new_s}: {new.prefix(bad[1] + 1)} is not a "
                           f"folder.")
            if kind == "dir" and new.comps[: len(old.comps)] == old.comps:
                raise Fail(f"Error: Cannot move {old_s} into itself ({new_s}).")
            bad = self.walk_parents(new.comps, make=True)
            if bad:
                raise Fail(f"Error: Cannot rename to {new_s}: {new.prefix(bad[1] + 1)} is not a "
                           f"folder.")
            self.rename_tree(old.comps, new.comps)
        return f"Successfully renamed {old_s} to {new_s}"


def cut_view(lines, final_newline, spelled):
    """decide.long-views: None when the whole file fits in 16,000 characters."""
    n = len(lines)

    def within(first):
        room, count = VIEW_CHAR_BUDGET, 0
        for number in range(first, n + 1):
            cost = len(lines[number - 1]) + (1 if (number < n or final_newline) else 0)
            if cost > room:
                break
            room -= cost
            count += 1
        return count

    shown = within(1)
    if shown == n:
        return None
    next_end = shown + max(within(shown + 1), 1)
    nxt = shown + 1
    budget = thousands(VIEW_CHAR_BUDGET)
    if shown == 0:
        what = f"this view shows none of them: line 1 alone is longer than {budget} characters"
    else:
        what = (f"this view shows lines 1-{shown}, the whole lines within its first {budget} "
                f"characters")
    if next_end >= n:
        how = f'To read the rest, view {spelled} with "view_range": [{nxt}, -1].'
    else:
        how = (f'To read on, view {spelled} with "view_range": [{nxt}, {next_end}] for the next '
               f'part, or [{nxt}, -1] for everything to the end.')
    return numbered(lines[:shown], 1) + f"\n\n[Truncated: the file has {n} lines and {what}. {how}]"


def has_image_name(name):
    lower = name.lower()
    return any(len(lower) > len(e) and lower.endswith(e) for e in (".png", ".jpg", ".jpeg"))


def image_type(data):
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    return None


def encode(s):
    try:
        return s.encode("utf-8")
    except UnicodeEncodeError:
        raise Fail("Error: The tool input contains text that is not valid Unicode.")


INT_MIN, INT_MAX = -(2**63), 2**64 - 1


class _Fields:
    """Typed access to the tool input's fields, with the reference's malformed-input errors."""

    def __init__(self, inp, cmd):
        self.inp, self.cmd = inp, cmd

    def required(self, field):
        if field not in self.inp:
            raise Fail(f"Error: Missing required parameter `{field}` for command `{self.cmd}`.")
        return self.inp[field]

    def string(self, field):
        v = self.required(field)
        if not isinstance(v, str):
            raise Fail(f"Error: Parameter `{field}` must be a string, got {json_type(v)}.")
        return v

    def optional_string(self, field):
        v = self.inp.get(field)
        if v is None:
            return None
        if not isinstance(v, str):
            raise Fail(f"Error: Parameter `{field}` must be a string, got {json_type(v)}.")
        return v

    def integer(self, field):
        v = self.required(field)
        if not is_int(v):
            raise Fail(f"Error: Parameter `{field}` must be an integer, got {json_type(v)}.")
        return v

    def view_range(self):
        v = self.inp.get("view_range")
        if v is None:
            return None
        if isinstance(v, list) and len(v) == 2 and is_int(v[0]) and is_int(v[1]):
            return (v[0], v[1])
        raise Fail("Error: Invalid `view_range`. It should be a list of two integers.")


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool) and INT_MIN <= v <= INT_MAX


def parse_int(s):
    n = int(s)
    return n if INT_MIN <= n <= INT_MAX else float(s)


def clean(s):
    """Text safe for strict JSON readers (no lone surrogates)."""
    return s.encode("utf-8", "backslashreplace").decode("utf-8")


def answer(memory, inp):
    try:
        return memory.call(inp), False
    except Fail as e:
        return str(e), True
    except RecursionError:
        return "Error: The input is nested too deeply to be handled.", True
    except Exception as e:  # never die on an input
        return f"Error: Internal failure while handling the input: {type(e).__name__}.", True


def main(cls, name, argv=None, users=UserStore):
    """Parse the command line, then serve protocol v1 on stdin/stdout with cls; with
    `--user USER`, as that user of the shared store, through `users` (a `UserStore`)."""
    args = list(sys.argv[1:] if argv is None else argv)
    shared, revision, folder, user, file = False, "ga-2026", None, None, None
    while args:
        a = args.pop(0)
        if a == "--shared":
            shared = True
        elif a == "--file" and args:
            # The SQLite file at exactly this path (in {state}, say), not one named after
            # {memories} in $MEMSPEC_KV_DIR.
            shared, file = True, args.pop(0)
            folder = folder or file
        elif a == "--revision" and args:
            revision = args.pop(0)
        elif a.startswith("--revision="):
            revision = a.split("=", 1)[1]
        elif a == "--user" and args:
            user = args.pop(0)
        else:
            folder = a
    if revision not in ("ga-2026", "beta-2025") or (shared and not folder):
        sys.stderr.write(f"usage: {name}.py [--shared] [--revision ga-2026|beta-2025] "
                         f"[--user USER] {{memories}}\n")
        return 2
    if user is not None and not (shared and user):
        sys.stderr.write(f"{name}.py: --user needs --shared and a non-empty id\n")
        return 2
    if not shared:
        store = DictStore()
    else:
        # Broken backends replace SqliteStore with a store of one argument.
        store = SqliteStore(folder) if file is None else SqliteStore(folder, file)
    if user is not None:
        store = users(store, user)
    memory = cls(store, revision)
    out = sys.stdout.buffer
    for raw in sys.stdin.buffer:
        line = raw.decode("utf-8", "replace").strip()
        if not line:
            continue
        try:
            req = json.loads(line, parse_int=parse_int)
            if not isinstance(req, dict):
                raise ValueError
            rid = req.get("id")
        except (ValueError, RecursionError):
            m = re.search(r'"id"\s*:\s*(-?[0-9]+)', line)
            rid = int(m.group(1)) if m else None
            reply = {"id": rid, "content": "Error: malformed protocol request: not a JSON "
                                           "object.", "is_error": True}
            out.write(json.dumps(reply).encode() + b"\n")
            out.flush()
            continue
        if "control" in req:
            c = req["control"]
            if c == "reset":
                why = memory.reset()  # a reason when it cannot
                reply = {"id": rid, "ok": True} if why is None else {"id": rid, "ok": False, "error": why}
            elif c == "hello":
                reply = {"id": rid, "ok": True, "protocol": 1,
                         "backend": f"memspec-kv-{name}-{store.name}"}
            else:
                reply = {"id": rid, "ok": False}
        else:
            content, is_error = answer(memory, req.get("input"))
            if isinstance(content, str):
                content = clean(content)
            reply = {"id": rid, "content": content, "is_error": is_error}
        out.write(json.dumps(reply, ensure_ascii=False).encode("utf-8") + b"\n")
        out.flush()
    return 0
