#!/usr/bin/env python3
"""A memory-tool backend (memory_20250818) that keeps every user's memories in ONE JSON file.

The worked example of docs/guide/json-store/README.md. Python 3.11, standard library only.

The store is `{state}/memories.json`:

    {"users": {"alice": {"/memories/notes.md": "text", "/memories/projects/": ""}, "bob": {...}}}

A file is the key of its path, holding its text; a folder is a key ending in `/` (its marker),
written for every folder that create or rename makes, so a folder stays when its last file
goes, as on a disk. Each command holds an exclusive `fcntl.flock` on `{state}/memories.lock`
from before it reads the file until after it wrote it, so two processes on one store (two
conversations, two users) never lose an update; a command that changes something writes the
whole file anew: a temp file in the same folder, flushed and fsynced, renamed over the old one
(`os.replace`), then the folder fsynced. A process killed at any point leaves the old file or
the new one, never a torn one; the kernel drops the flock of a killed process.

Two ways to run it:

    python3 json_store.py --state DIR [--user ID]       protocol v1 on stdin/stdout
    make(state, user=None)                              a handler for memspec check --python

The strings follow the spec (memory_20250818, GA page), and memspec's reference wherever the
spec leaves a point open (spec/decisions.json).
"""

import argparse
import contextlib
import fcntl
import json
import os
import re
import sys
import unicodedata

ROOT = "/memories"
COMMANDS = ("view", "create", "str_replace", "insert", "delete", "rename")
MAX_LINES = 999_999  # a longer file is refused by view (the spec's limit)
VIEW_CHAR_BUDGET = 16_000  # a longer view is cut at whole lines (decide.long-views)
MAX_PATH_BYTES = 4096
MAX_COMPONENT_BYTES = 255
SNIPPET_CONTEXT = 4  # lines shown around a str_replace
INT_MIN, INT_MAX = -(2**63), 2**64 - 1


class Fail(Exception):
    """An answer with is_error true; its text is what Claude reads."""


# --------------------------------------------------------------------------- the store file


class JsonFile:
    """All users' memories in `{state}/memories.json`, one locked command at a time."""

    def __init__(self, state):
        os.makedirs(state, exist_ok=True)
        self.folder = state
        self.path = os.path.join(state, "memories.json")
        self.lock_path = os.path.join(state, "memories.lock")

    @contextlib.contextmanager
    def command(self):
        """Locks the store, yields its document (a dict), and writes it back if the command
        set `doc["changed"]`. An exception leaves the file as it was (nothing is written)."""
        with open(self.lock_path, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or its process dies
            doc = self.load()
            changed = []
            yield doc, changed
            if changed:
                self.save(doc)

    def load(self):
        try:
            with open(self.path, encoding="utf-8") as f:
                return json.load(f)
        except FileNotFoundError:
            return {"users": {}}

    def save(self, doc):
        tmp = self.path + ".tmp"  # only the lock holder writes it, so one name is enough
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(doc, f)  # ASCII escapes: a lone surrogate in a key is kept, not an error
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)
        folder = os.open(self.folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(folder)  # the rename itself is durable
        finally:
            os.close(folder)


class Memories:
    """One user's memories inside the document: key -> text, folders as `…/` markers."""

    def __init__(self, doc, changed, user):
        self.items = doc["users"].get(user, {})
        self.doc, self.changed, self.user = doc, changed, user

    def get(self, key):
        return self.items.get(key)

    def put(self, key, text):
        if not self.items:
            self.doc["users"][self.user] = self.items
        self.items[key] = text
        self.changed.append(key)

    def remove(self, key):
        if self.items.pop(key, None) is not None:
            self.changed.append(key)

    def scan(self, prefix):
        """(key, text) of every key that starts with prefix."""
        return sorted((k, v) for k, v in self.items.items() if k.startswith(prefix))


# ------------------------------------------------------------------------------- messages


def json_type(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, int):
        return "an integer" if INT_MIN <= v <= INT_MAX else "a non-integer number"
    if isinstance(v, float):
        return "a non-integer number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "an array"
    return "an object"


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool) and INT_MIN <= v <= INT_MAX


def printable(text):
    """Control characters escaped as Rust's escape_default writes them (the reference's)."""
    out = []
    for c in text:
        if unicodedata.category(c) != "Cc":
            out.append(c)
        else:
            out.append({"\t": "\\t", "\r": "\\r", "\n": "\\n"}.get(c, "\\u{%x}" % ord(c)))
    return "".join(out)


def human_size(n):
    """A listing's size: 512B, 1.5K, 2.0M."""
    if n < 1024:
        return f"{n}B"
    value, unit = n / 1024.0, 0
    while value >= 1023.95 and unit + 1 < len("KMGTPE"):
        value, unit = value / 1024.0, unit + 1
    return f"{value:.1f}{'KMGTPE'[unit]}"


def utf8_len(text):
    return len(text.encode("utf-8", "surrogatepass"))


def checked_text(text):
    """Text to store: it must be valid Unicode (JSON can carry a lone surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise Fail("Error: The tool input contains text that is not valid Unicode.") from None
    return text


# ---------------------------------------------------------------------------------- paths

# Characters that look like `.`, `/` or `\`: a segment that would be traversal with them
# read as what they look like is refused.
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


def percent_decoded(segment):
    """The segment with %XX decoded once, or None when it has no %XX."""
    raw = segment.encode("utf-8", "surrogatepass")
    decoded = re.sub(rb"%([0-9a-fA-F]{2})", lambda m: bytes([int(m.group(1), 16)]), raw)
    return None if decoded == raw else decoded.decode("utf-8", "replace")


def traversal_like(s):
    return s in (".", "..") or "/" in s or "\\" in s or "\0" in s


def segment_fault(segment):
    if segment in (".", ".."):
        return "dot"
    if utf8_len(segment) > MAX_COMPONENT_BYTES:
        return "component"
    decoded = segment
    for _ in range(3):  # %252e%252e is `..` decoded twice
        decoded = percent_decoded(decoded)
        if decoded is None:
            break
        if traversal_like(decoded):
            return "encoded"
    if any(c in LOOKALIKES for c in segment):
        if traversal_like("".join(LOOKALIKES.get(c, c) for c in segment)):
            return "lookalike"
    return None


class Path:
    """A memory path as Claude spelled it: its segments, and whether it ends with `/`."""

    def __init__(self, spelled):
        fault = None
        if any(unicodedata.category(c) == "Cc" for c in spelled):
            fault = "control"
        elif "\\" in spelled:
            fault = "backslash"
        elif utf8_len(spelled) > MAX_PATH_BYTES:
            fault = "long"
        elif not (spelled == ROOT or spelled.startswith(ROOT + "/")):
            fault = "outside"
        segments = []
        if fault is None:
            for segment in spelled[len(ROOT):].split("/"):
                if segment:  # `//` and a final `/` name the same place
                    fault = segment_fault(segment)
                    if fault:
                        break
                    segments.append(segment)
        if fault:
            raise Fail(f"Error: The path {printable(spelled)} is not a valid memory path: "
                       f"{REASONS[fault]}.")
        self.spelled = spelled
        self.parts = tuple(segments)
        rest = spelled[len(ROOT):]
        self.trailing = len(rest) > 1 and rest.endswith("/")

    def is_root(self):
        return not self.parts

    def key(self, n=None):
        """The store key of the path (or of its first n segments)."""
        return ROOT + "".join("/" + s for s in self.parts[:n])


def key_of(parts):
    return ROOT + "".join("/" + s for s in parts)


# ----------------------------------------------------------------------------------- text


def line_count(text):
    """Lines as decide.final-newline counts them: a final newline ends the last line."""
    n = text.count("\n")
    return n if (not text or text.endswith("\n")) else n + 1


def lines_of(text):
    if not text:
        return []
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines


def numbered(lines, first):
    return "".join(f"\n{n:>6}\t{line}" for n, line in enumerate(lines, first))


def cut_view(lines, final_newline, spelled):
    """A view of a long file cut at whole lines with the reference's notice
    (decide.long-views), or None when the whole file fits in 16,000 characters."""
    n = len(lines)

    def fitting(first):
        room, count = VIEW_CHAR_BUDGET, 0
        for number in range(first, n + 1):
            cost = len(lines[number - 1]) + (1 if (number < n or final_newline) else 0)
            if cost > room:
                break
            room, count = room - cost, count + 1
        return count

    shown = fitting(1)
    if shown == n:
        return None
    following, end = shown + 1, shown + max(fitting(shown + 1), 1)
    if shown == 0:
        what = "this view shows none of them: line 1 alone is longer than 16,000 characters"
    else:
        what = f"this view shows lines 1-{shown}, the whole lines within its first 16,000 characters"
    if end >= n:
        how = f'To read the rest, view {spelled} with "view_range": [{following}, -1].'
    else:
        how = (f'To read on, view {spelled} with "view_range": [{following}, {end}] for the next '
               f'part, or [{following}, -1] for everything to the end.')
    return numbered(lines[:shown], 1) + f"\n\n[Truncated: the file has {n} lines and {what}. {how}]"


# ------------------------------------------------------------------------------ the input


class Fields:
    """The tool input's fields, with the reference's errors for missing or mistyped ones."""

    def __init__(self, tool_input, command):
        self.input, self.command = tool_input, command

    def string(self, name):
        if name not in self.input:
            raise Fail(f"Error: Missing required parameter `{name}` for command `{self.command}`.")
        value = self.input[name]
        if not isinstance(value, str):
            raise Fail(f"Error: Parameter `{name}` must be a string, got {json_type(value)}.")
        return value

    def optional_string(self, name):
        value = self.input.get(name)
        if value is not None and not isinstance(value, str):
            raise Fail(f"Error: Parameter `{name}` must be a string, got {json_type(value)}.")
        return value

    def integer(self, name):
        if name not in self.input:
            raise Fail(f"Error: Missing required parameter `{name}` for command `{self.command}`.")
        value = self.input[name]
        if not is_int(value):
            raise Fail(f"Error: Parameter `{name}` must be an integer, got {json_type(value)}.")
        return value

    def view_range(self):
        value = self.input.get("view_range")
        if value is None:
            return None
        if isinstance(value, list) and len(value) == 2 and all(is_int(v) for v in value):
            return value[0], value[1]
        raise Fail("Error: Invalid `view_range`. It should be a list of two integers.")


# ------------------------------------------------------------------------------- commands


class Commands:
    """The six commands over one user's memories (a `Memories`)."""

    def __init__(self, memories):
        self.m = memories

    def run(self, tool_input):
        if not isinstance(tool_input, dict):
            raise Fail(f"Error: The tool input must be a JSON object, got {json_type(tool_input)}.")
        if "command" not in tool_input:
            raise Fail("Error: Missing required parameter `command`.")
        command = tool_input["command"]
        if not isinstance(command, str):
            raise Fail(f"Error: Parameter `command` must be a string, got {json_type(command)}.")
        if command not in COMMANDS:
            raise Fail(f"Error: Unknown command `{command}`. Valid commands are: {', '.join(COMMANDS)}.")
        return getattr(self, command)(Fields(tool_input, command))

    # ---- what is at a path

    def kind(self, parts):
        """`dir`, `file` or `missing` for the path of these segments."""
        if not parts:
            return "dir"
        if self.m.get(key_of(parts)) is not None:
            return "file"
        if self.m.get(key_of(parts) + "/") is not None:
            return "dir"
        return "missing"

    def parents(self, parts, make=False):
        """Checks (or makes) the folders above the last segment: None, or (fault, index) where
        fault is `notdir` (a file is in the way) or `missing`."""
        for i in range(1, len(parts)):
            kind = self.kind(parts[:i])
            if kind == "missing" and make:
                self.m.put(key_of(parts[:i]) + "/", "")
            elif kind != "dir":
                return ("notdir" if kind == "file" else "missing", i)
        return None

    def locate(self, path):
        if path.is_root():
            return "dir"
        if self.parents(path.parts):
            return "missing"
        kind = self.kind(path.parts)
        return "missing" if (path.trailing and kind == "file") else kind

    def subtree(self, parts):
        """(key, text) of a file or a folder and everything in it."""
        key = key_of(parts)
        own = [(key, self.m.get(key))] if self.m.get(key) is not None else []
        return own + self.m.scan(key + "/")

    def text_file(self, path, missing):
        if self.locate(path) != "file":
            raise Fail(missing)
        return self.m.get(path.key())

    # ---- view

    def view(self, f):
        spelled = f.string("path")
        wanted = f.view_range()
        path = Path(spelled)
        kind = self.locate(path)
        if kind == "missing":
            raise Fail(f"The path {spelled} does not exist. Please provide a valid path.")
        if kind == "dir":
            if wanted is not None:
                raise Fail("Error: The `view_range` parameter is not allowed when `path` points to a directory.")
            return self.listing(path)
        text = self.m.get(path.key())
        n = line_count(text)
        if n > MAX_LINES:
            raise Fail(f"File {spelled} exceeds maximum line limit of 999,999 lines.")
        lines = lines_of(text)
        header = f"Here's the content of {spelled} with line numbers:"
        if wanted is None:
            return header + (cut_view(lines, text.endswith("\n"), spelled) or numbered(lines, 1))
        a, b = wanted
        if a < 1 or a > n:
            raise Fail(f"Error: Invalid `view_range`: [{a}, {b}]. Its first element `{a}` should be "
                       f"within the range of lines of the file: [1, {n}]")
        if b > n:
            raise Fail(f"Error: Invalid `view_range`: [{a}, {b}]. Its second element `{b}` should be "
                       f"smaller than the number of lines in the file: `{n}`")
        if b != -1 and b < a:
            raise Fail(f"Error: Invalid `view_range`: [{a}, {b}]. Its second element `{b}` should be "
                       f"larger or equal than its first `{a}`")
        return header + numbered(lines[a - 1 : n if b == -1 else b], a)

    def listing(self, path):
        """Two levels below the folder, hidden items and node_modules left out, sorted by the
        bytes of their names; each line the size of a file, or of all a folder holds."""
        at = path.key()
        prefix = at + "/"
        tree = {}
        for key, text in self.m.scan(prefix):
            names = key[len(prefix):].split("/")
            folder = names[-1] == ""
            if folder:
                names.pop()
            if not names or any(n.startswith(".") or n == "node_modules" for n in names):
                continue
            node = tree
            for name in names[:-1]:
                node = node.setdefault(name, {})
            if folder:
                node.setdefault(names[-1], {})
            else:
                node[names[-1]] = utf8_len(text)

        def size(node):
            return sum(size(x) if isinstance(x, dict) else x for x in node.values())

        def ordered(node):
            return sorted(node.items(), key=lambda item: item[0].encode("utf-8", "surrogatepass"))

        out = [f"Here're the files and directories up to 2 levels deep in {path.spelled}, "
               f"excluding hidden items and node_modules:", f"{human_size(size(tree))}\t{at}"]
        for name, x in ordered(tree):
            if not isinstance(x, dict):
                out.append(f"{human_size(x)}\t{at}/{name}")
                continue
            out.append(f"{human_size(size(x))}\t{at}/{name}/")
            for name2, y in ordered(x):
                if isinstance(y, dict):
                    out.append(f"{human_size(size(y))}\t{at}/{name}/{name2}/")
                else:
                    out.append(f"{human_size(y)}\t{at}/{name}/{name2}")
        return "\n".join(out)

    # ---- writes

    def create(self, f):
        spelled = f.string("path")
        text = checked_text(f.string("file_text"))
        path = Path(spelled)
        if path.is_root():
            raise Fail(f"Error: File {spelled} already exists")
        if path.trailing:
            raise Fail(f"Error: The path {spelled} ends with a slash; create makes files, not folders.")
        fault = self.parents(path.parts, make=True)
        if fault:
            raise Fail(f"Error: Cannot create {spelled}: {path.key(fault[1])} is not a folder.")
        if self.kind(path.parts) != "missing":
            raise Fail(f"Error: File {spelled} already exists")  # create never overwrites
        self.m.put(path.key(), text)
        return f"File created successfully at: {spelled}"

    def str_replace(self, f):
        spelled = f.string("path")
        old = checked_text(f.string("old_str"))
        new = checked_text(f.optional_string("new_str") or "")
        path = Path(spelled)
        text = self.text_file(path, f"Error: The path {spelled} does not exist. Please provide a valid path.")
        if not old:
            raise Fail(f"Error: No replacement was performed on {spelled}: `old_str` must not be empty.")
        at = text.find(old)
        if at == -1:
            raise Fail(f"No replacement was performed, old_str `{old}` did not appear verbatim in {spelled}.")
        if text.find(old, at + 1) != -1:
            lines, pos = [], at
            while pos != -1:
                number = text.count("\n", 0, pos) + 1
                if not lines or lines[-1] != number:
                    lines.append(number)
                pos = text.find(old, pos + 1)
            raise Fail(f"No replacement was performed. Multiple occurrences of old_str `{old}` in lines: "
                       f"{', '.join(map(str, lines))}. Please ensure it is unique")
        edited = text[:at] + new + text[at + len(old):]
        self.m.put(path.key(), edited)
        first = text.count("\n", 0, at) + 1
        last = first + new.count("\n")
        lo, hi = max(first - SNIPPET_CONTEXT, 1), min(last + SNIPPET_CONTEXT, line_count(edited))
        snippet = numbered(lines_of(edited)[lo - 1 : hi], lo) if lo <= hi else ""
        return "The memory file has been edited." + snippet

    def insert(self, f):
        spelled = f.string("path")
        line = f.integer("insert_line")
        new = checked_text(f.string("insert_text"))
        path = Path(spelled)
        text = self.text_file(path, f"Error: The path {spelled} does not exist")
        n = line_count(text)
        if line < 0 or line > n:
            raise Fail(f"Error: Invalid `insert_line` parameter: {line}. It should be within the range "
                       f"of lines of the file: [0, {n}]")
        split = sum(len(l) + 1 for l in text.split("\n")[:line]) if line else 0
        split = min(split, len(text))
        before, after = text[:split], text[split:]
        if before and not before.endswith("\n") and new:
            before += "\n"  # inserting after a last line that has no newline
        if new and not new.endswith("\n") and after:
            new += "\n"  # the inserted text ends its line
        self.m.put(path.key(), before + new + after)
        return f"The file {spelled} has been edited."

    def delete(self, f):
        spelled = f.string("path")
        path = Path(spelled)
        if path.is_root():
            raise Fail("Error: Cannot delete the /memories directory itself")
        if self.locate(path) == "missing":
            raise Fail(f"Error: The path {spelled} does not exist")
        for key, _ in self.subtree(path.parts):
            self.m.remove(key)
        return f"Successfully deleted {spelled}"

    def rename(self, f):
        old_s, new_s = f.string("old_path"), f.string("new_path")
        old, new = Path(old_s), Path(new_s)
        if old.is_root():
            raise Fail("Error: Cannot rename the /memories directory itself")
        kind = self.locate(old)
        if kind == "missing":
            raise Fail(f"Error: The path {old_s} does not exist")
        if new.is_root():
            raise Fail(f"Error: The destination {new_s} already exists")
        if new.trailing and kind != "dir":
            raise Fail(f"Error: Cannot rename {old_s} to {new_s}: the destination ends with a slash, "
                       f"which names a folder, and {old_s} is a file.")
        fault = self.parents(new.parts)
        if fault is None and self.kind(new.parts) != "missing":
            raise Fail(f"Error: The destination {new_s} already exists")  # rename never overwrites
        if fault and fault[0] == "notdir":
            raise Fail(f"Error: Cannot rename to {new_s}: {new.key(fault[1])} is not a folder.")
        if kind == "dir" and new.parts[: len(old.parts)] == old.parts:
            raise Fail(f"Error: Cannot move {old_s} into itself ({new_s}).")
        self.parents(new.parts, make=True)
        moved = self.subtree(old.parts)
        for key, _ in moved:
            self.m.remove(key)
        for key, text in moved:
            self.m.put(new.key() + key[len(old.key()):], text)
        return f"Successfully renamed {old_s} to {new_s}"


# ------------------------------------------------------------------------------- handlers


def make(state, user=None):
    """A handler for one user of the store in `state`: `handle(tool_input)` returns the text of
    a success, or `{"content": text, "is_error": True}`; `handle.reset()` forgets every memory
    of that user (and only theirs)."""
    if not state:
        raise ValueError("make() needs the store's folder: memspec passes {state} (MEMSPEC_STATE)")
    store = JsonFile(state)
    user = "" if user is None else user

    def handle(tool_input):
        try:
            with store.command() as (doc, changed):
                return Commands(Memories(doc, changed, user)).run(tool_input)
        except Fail as e:
            return {"content": str(e), "is_error": True}
        except RecursionError:
            return {"content": "Error: The input is nested too deeply to be handled.", "is_error": True}

    def reset():
        with store.command() as (doc, changed):
            if doc["users"].pop(user, None) is not None:
                changed.append(user)

    handle.reset = reset
    return handle


def parse_int(digits):
    """JSON integers beyond what the tool takes (u64, i64) are read as numbers, as serde does."""
    n = int(digits)
    return n if INT_MIN <= n <= INT_MAX else float(digits)


def serve(handle, stdin, stdout):
    """Protocol v1: one JSON request per line in, one reply per line out, flushed."""
    for raw in stdin:
        line = raw.decode("utf-8", "replace").strip()
        if not line:
            continue
        try:
            request = json.loads(line, parse_int=parse_int)
            if not isinstance(request, dict):
                raise ValueError("not an object")
        except (ValueError, RecursionError):
            found = re.search(r'"id"\s*:\s*(-?[0-9]+)', line)
            reply = {"id": int(found.group(1)) if found else None,
                     "content": "Error: malformed protocol request: not a JSON object.", "is_error": True}
        else:
            rid = request.get("id")
            if "control" in request:
                control = request["control"]
                if control == "hello":
                    reply = {"id": rid, "ok": True, "protocol": 1, "backend": "json-store"}
                elif control == "reset":
                    handle.reset()
                    reply = {"id": rid, "ok": True}
                else:
                    reply = {"id": rid, "ok": False, "error": f"unknown control {control!r}"}
            else:
                try:
                    answer = handle(request.get("input"))
                except Exception as e:  # a bug or a broken disk: answer it, never die on it
                    answer = {"content": f"Error: {type(e).__name__}: {e}", "is_error": True}
                if isinstance(answer, str):
                    answer = {"content": answer, "is_error": False}
                # A lone surrogate (from a path) cannot be sent as UTF-8: escape it visibly.
                text = answer["content"].encode("utf-8", "backslashreplace").decode("utf-8")
                reply = {"id": rid, "content": text, "is_error": answer["is_error"]}
        stdout.write(json.dumps(reply, ensure_ascii=False).encode("utf-8") + b"\n")
        stdout.flush()


def main():
    sys.set_int_max_str_digits(0)
    parser = argparse.ArgumentParser(description="memory tool backend over one JSON file (protocol v1)")
    parser.add_argument("--state", default=os.environ.get("MEMSPEC_STATE"),
                        help="folder of memories.json (default: $MEMSPEC_STATE)")
    parser.add_argument("--user", default=os.environ.get("MEMSPEC_USER"),
                        help="the user served (default: $MEMSPEC_USER, else the one default user)")
    args = parser.parse_args()
    if not args.state:
        parser.error("give --state DIR (memspec: --state {state})")
    serve(make(args.state, args.user), sys.stdin.buffer, sys.stdout.buffer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
