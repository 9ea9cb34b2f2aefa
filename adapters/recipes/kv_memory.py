"""The memory tool's six commands over any key-value store: the engine the Redis and SQLite recipes share.

A store keeps *entries*: a canonical memory path (``/memories/notes/todo.md``) mapped to a folder
or to a file's bytes. ``/memories`` itself is always there and is never stored. Folders are
entries of their own (not implied by the files under them), so deleting the last file of a folder
leaves the folder, as on a disk. A backend only implements :class:`Entries` (four methods); the
commands, the path grammar, the listing and every message live here and follow memspec's
reference (``memspec serve``, ``spec/rules.json``, ``spec/decisions.json``).

Errors are raised as the SDK's ``ToolError`` so that the runner (and memspec's adapter) sends
their text as it is, with ``is_error: true``.
"""

from __future__ import annotations

import contextlib
import urllib.parse
from typing import Any, ContextManager, Dict, Iterable, List, Optional, Tuple

try:  # The runner recognises its own ToolError; without the SDK, memspec's adapter matches by name.
    from anthropic.lib.tools import ToolError
except ImportError:  # pragma: no cover - only without the anthropic package

    class ToolError(Exception):  # type: ignore[no-redef]
        """Stand-in for ``anthropic.lib.tools.ToolError``: an error text the model reads as is."""

        def __init__(self, content: str) -> None:
            super().__init__(content)
            self.content = content


ROOT = "/memories"
MAX_LINES = 999_999
FOLDER = "d"
FILE = "f"
# Characters that fold into `.`, `..`, `/` or `\` under Unicode normalisation (NFKC and friends):
# a store or a tool that normalises names later must not see them turn into a traversal.
LOOKALIKES = str.maketrans(
    {
        "\uff0e": ".",  # fullwidth full stop
        "\u2024": ".",  # one dot leader
        "\ufe52": ".",  # small full stop
        "\u2025": "..",  # two dot leader
        "\uff0f": "/",  # fullwidth solidus
        "\u2215": "/",  # division slash
        "\u2044": "/",  # fraction slash
        "\u29f8": "/",  # big solidus
        "\uff3c": "\\",  # fullwidth reverse solidus
        "\ufe68": "\\",  # small reverse solidus
        "\u2216": "\\",  # set minus
        "\u29f9": "\\",  # big reverse solidus
    }
)
COMMANDS = ("view", "create", "str_replace", "insert", "delete", "rename")
REQUIRED = {
    "view": ("path",),
    "create": ("path", "file_text"),
    "str_replace": ("path", "old_str"),
    "insert": ("path", "insert_line", "insert_text"),
    "delete": ("path",),
    "rename": ("old_path", "new_path"),
}
Entry = Tuple[str, bytes]  # (FOLDER or FILE, the file's bytes; b"" for a folder)


class Entries:
    """What a store must provide. Paths are canonical (`/memories/a/b`, no trailing slash)."""

    def get(self, path: str) -> Optional[Entry]:
        """The entry at ``path``, or None."""
        raise NotImplementedError

    def below(self, path: str) -> Dict[str, Entry]:
        """Every entry strictly below the folder ``path``, at any depth."""
        raise NotImplementedError

    def apply(self, put: Dict[str, Entry], remove: Iterable[str]) -> None:
        """Remove ``remove`` then write ``put``, all at once (one transaction)."""
        raise NotImplementedError

    def clear(self) -> None:
        """Remove every entry of this store (memspec's `reset`, between cases)."""
        raise NotImplementedError

    def command(self) -> ContextManager[None]:
        """One command that changes the store, run alone: its reads and its writes as one unit
        against every other process on the store. str_replace and insert read a file and write it
        back; without this, two agents editing one file at once each undo the other's edit (a
        memory lost, which `memspec check` races two processes to find). A store of one process
        needs nothing."""
        return contextlib.nullcontext()


# --- small helpers -------------------------------------------------------------------------


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a non-integer number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _encode(text: str) -> bytes:
    # Claude's input may hold lone surrogates; keep them rather than fail (the runner folds them
    # to U+FFFD on the way out).
    return text.encode("utf-8", "surrogatepass")


def _decode(data: bytes) -> str:
    return data.decode("utf-8", "surrogatepass")


def _escape(path: str) -> str:
    """Rust's `char::escape_default`, which the reference uses for a path with a control character."""
    out = []
    for ch in path:
        if ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\n":
            out.append("\\n")
        elif ch in "'\"\\":
            out.append("\\" + ch)
        elif " " <= ch <= "~":
            out.append(ch)
        else:
            out.append(f"\\u{{{ord(ch):x}}}")
    return "".join(out)


def human_size(n: int) -> str:
    """Powers of 1024, one decimal from 1024 on (decide.size-format)."""
    if n < 1024:
        return f"{n}B"
    value = float(n)
    for unit in "KMGTPE":
        value /= 1024
        if round(value, 1) < 1024 or unit == "E":
            return f"{value:.1f}{unit}"
    raise AssertionError("unreachable")


def split_lines(text: str) -> List[str]:
    """A final newline ends the last line rather than starting an empty one (decide.final-newline)."""
    if text == "":
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def numbered(lines: List[str], first: int) -> str:
    return "\n".join(f"{i:>6}\t{line}" for i, line in enumerate(lines, first))


def _hidden(name: str) -> bool:
    return name.startswith(".") or name == "node_modules"


class Path:
    """A path that passed the grammar: its canonical form, and whether it ended with a slash."""

    def __init__(self, given: str, canonical: str, trailing_slash: bool) -> None:
        self.given = given
        self.canonical = canonical
        self.trailing_slash = trailing_slash

    @property
    def is_root(self) -> bool:
        return self.canonical == ROOT


def parse_path(path: Any, field: str = "path") -> Path:
    """The path grammar (decide.path-grammar): refuse anything that is not plainly inside /memories."""
    if not isinstance(path, str):
        raise ToolError(f"Error: Parameter `{field}` must be a string, got {_type_name(path)}.")

    control = any(ord(c) < 32 or 127 <= ord(c) < 160 for c in path)

    def refuse(reason: str) -> ToolError:
        shown = _escape(path) if control else path
        return ToolError(f"Error: The path {shown} is not a valid memory path: {reason}.")

    # The reference's order: what is wrong anywhere in the string first, then the prefix.
    if control:
        raise refuse("control characters such as NUL are not allowed")
    if "\\" in path:
        raise refuse("backslashes are not allowed")
    if path != ROOT and not path.startswith(ROOT + "/"):
        raise refuse("memory paths must be /memories or start with /memories/")
    if len(_encode(path)) > 4096:
        raise refuse("it is longer than 4096 bytes")
    segments = [s for s in path[len(ROOT) :].split("/") if s != ""]
    for segment in segments:
        if segment in (".", ".."):
            raise refuse("`.` and `..` segments are not allowed")
        if len(_encode(segment)) > 255:
            raise refuse("a path segment is longer than 255 bytes")
        folded = segment.translate(LOOKALIKES)
        if folded != segment and (folded in (".", "..") or "/" in folded or "\\" in folded):
            raise refuse("characters that look like dots, slashes or backslashes are not allowed")
        decoded = segment
        for _ in range(3):  # a store or a proxy may decode `%2e%2e` (even twice) into `..`
            decoded = urllib.parse.unquote(decoded)
            if decoded in (".", "..") or any(c in decoded for c in "/\\\x00"):
                raise refuse("percent-encoded dots, slashes, backslashes and NUL are not allowed")
    canonical = ROOT + "".join("/" + s for s in segments)
    return Path(path, canonical, path.endswith("/") and canonical != ROOT)


# --- the tool --------------------------------------------------------------------------------


class KVMemoryTool:
    """Claude's memory tool (`memory_20250818`) over an :class:`Entries` store.

    ``call(input)`` takes the tool input as Claude sent it (malformed inputs included) and returns
    the result text, or raises ``ToolError`` with the error text. ``clear_all_memory()`` empties
    the store; memspec's ``reset`` calls it between cases.
    """

    def __init__(self, entries: Entries) -> None:
        self.entries = entries

    # The SDK's BetaAbstractMemoryTool has the same two entry points.
    def call(self, tool_input: Any) -> Any:
        """Validate ``tool_input`` and run its command."""
        if not isinstance(tool_input, dict):
            raise ToolError(f"Error: The tool input must be a JSON object, got {_type_name(tool_input)}.")
        if "command" not in tool_input:
            raise ToolError("Error: Missing required parameter `command`.")
        command = tool_input["command"]
        if not isinstance(command, str):
            raise ToolError(f"Error: Parameter `command` must be a string, got {_type_name(command)}.")
        if command not in COMMANDS:
            raise ToolError(f"Error: Unknown command `{command}`. Valid commands are: {', '.join(COMMANDS)}.")
        for field in REQUIRED[command]:
            if field not in tool_input:
                raise ToolError(f"Error: Missing required parameter `{field}` for command `{command}`.")
        if command == "view":
            return self.view(tool_input)
        with self.entries.command():
            return getattr(self, command)(tool_input)

    def clear_all_memory(self) -> str:
        """Empty the store."""
        self.entries.clear()
        return "All memory cleared"

    # --- lookups ---------------------------------------------------------------------------

    def _entry(self, path: Path) -> Optional[Entry]:
        """What is at ``path``, read once: `view` takes no lock, so a second read could see the
        store after another client's rename or delete (a file read as empty)."""
        if path.is_root:
            return (FOLDER, b"")
        entry = self.entries.get(path.canonical)
        if entry is not None and entry[0] == FILE and path.trailing_slash:
            return None  # `notes.txt/` names a folder that is not there (POSIX ENOTDIR)
        return entry

    def _kind(self, path: Path) -> Optional[str]:
        entry = self._entry(path)
        return None if entry is None else entry[0]

    def _file(self, path: Path) -> Optional[str]:
        """The text of the file at ``path``, or None when it is not a file."""
        if path.is_root or path.trailing_slash:
            return None
        entry = self.entries.get(path.canonical)
        if entry is None or entry[0] != FILE:
            return None
        return _decode(entry[1])

    @staticmethod
    def _string(tool_input: dict, field: str, default: Optional[str] = None) -> str:
        value = tool_input.get(field, default)
        if value is None and default is not None:
            return default
        if not isinstance(value, str):
            raise ToolError(f"Error: Parameter `{field}` must be a string, got {_type_name(value)}.")
        return value

    def _parents_to_make(self, path: str, fail: str) -> Dict[str, Entry]:
        """The missing folders above ``path``; ``fail`` (with `{parent}`) when a file is in the way."""
        missing: Dict[str, Entry] = {}
        parts = path[len(ROOT) + 1 :].split("/")[:-1]
        current = ROOT
        for part in parts:
            current = f"{current}/{part}"
            entry = self.entries.get(current)
            if entry is None:
                missing[current] = (FOLDER, b"")
            elif entry[0] != FOLDER:
                raise ToolError(fail.format(parent=current))
        return missing

    # --- commands --------------------------------------------------------------------------

    def view(self, tool_input: dict) -> str:
        """A file with line numbers, or a folder's listing two levels deep."""
        path = parse_path(tool_input.get("path"))
        view_range = tool_input.get("view_range")
        entry = self._entry(path)
        if entry is None:
            raise ToolError(f"The path {path.given} does not exist. Please provide a valid path.")
        if entry[0] == FOLDER:
            if view_range is not None:
                raise ToolError("Error: The `view_range` parameter is not allowed when `path` points to a directory.")
            return self._listing(path)
        text = _decode(entry[1])
        lines = split_lines(text)
        if len(lines) > MAX_LINES:
            raise ToolError(f"File {path.given} exceeds maximum line limit of {MAX_LINES:,} lines.")
        first = 1
        if view_range is not None:
            if not (isinstance(view_range, list) and len(view_range) == 2 and all(map(_is_int, view_range))):
                raise ToolError("Error: Invalid `view_range`. It should be a list of two integers.")
            start, end = view_range
            n = len(lines)
            shown = f"[{start}, {end}]"
            if not 1 <= start <= n:
                raise ToolError(
                    f"Error: Invalid `view_range`: {shown}. Its first element `{start}` should be within "
                    f"the range of lines of the file: [1, {n}]"
                )
            if end > n:
                raise ToolError(
                    f"Error: Invalid `view_range`: {shown}. Its second element `{end}` should be smaller "
                    f"than the number of lines in the file: `{n}`"
                )
            if end != -1 and end < start:
                raise ToolError(
                    f"Error: Invalid `view_range`: {shown}. Its second element `{end}` should be larger "
                    f"or equal than its first `{start}`"
                )
            lines = lines[start - 1 :] if end == -1 else lines[start - 1 : end]
            first = start
        header = f"Here's the content of {path.given} with line numbers:"
        return header + ("\n" + numbered(lines, first) if lines else "")

    def _listing(self, path: Path) -> str:
        below = self.entries.below(path.canonical)
        children: Dict[str, List[str]] = {}
        for key in below:
            parent, _, name = key.rpartition("/")
            children.setdefault(parent, []).append(name)

        def size(key: str) -> int:
            entry = below.get(key)
            if entry is not None and entry[0] == FILE:
                return len(entry[1])
            return sum(size(f"{key}/{name}") for name in children.get(key, []) if not _hidden(name))

        lines = [f"{human_size(size(path.canonical))}\t{path.canonical}"]

        def walk(folder: str, depth: int) -> None:
            for name in sorted(children.get(folder, []), key=_encode):
                if _hidden(name):
                    continue
                key = f"{folder}/{name}"
                is_folder = below[key][0] == FOLDER
                lines.append(f"{human_size(size(key))}\t{key}{'/' if is_folder else ''}")
                if is_folder and depth < 2:
                    walk(key, depth + 1)

        walk(path.canonical, 1)
        header = (
            f"Here're the files and directories up to 2 levels deep in {path.given}, "
            "excluding hidden items and node_modules:"
        )
        return header + "\n" + "\n".join(lines)

    def create(self, tool_input: dict) -> str:
        """A new file; never replaces anything."""
        path = parse_path(tool_input.get("path"))
        text = self._string(tool_input, "file_text")
        if path.trailing_slash:
            raise ToolError(f"Error: The path {path.given} ends with a slash; create makes files, not folders.")
        if path.is_root or self.entries.get(path.canonical) is not None:
            raise ToolError(f"Error: File {path.given} already exists")
        parents = self._parents_to_make(path.canonical, f"Error: Cannot create {path.given}: {{parent}} is not a folder.")
        self.entries.apply({**parents, path.canonical: (FILE, _encode(text))}, [])
        return f"File created successfully at: {path.given}"

    def str_replace(self, tool_input: dict) -> str:
        """Replace the one occurrence of ``old_str``; ``new_str`` defaults to the empty string."""
        path = parse_path(tool_input.get("path"))
        old = self._string(tool_input, "old_str")
        new = self._string(tool_input, "new_str", "")
        text = self._file(path)
        if text is None:
            raise ToolError(f"Error: The path {path.given} does not exist. Please provide a valid path.")
        if old == "":
            raise ToolError(f"Error: No replacement was performed on {path.given}: `old_str` must not be empty.")
        starts = []
        at = text.find(old)
        while at >= 0:  # overlapping occurrences count (decide.str-replace-occurrences)
            starts.append(at)
            at = text.find(old, at + 1)
        if not starts:
            raise ToolError(f"No replacement was performed, old_str `{old}` did not appear verbatim in {path.given}.")
        if len(starts) > 1:
            lines = sorted({text.count("\n", 0, s) + 1 for s in starts})
            raise ToolError(
                f"No replacement was performed. Multiple occurrences of old_str `{old}` in lines: "
                f"{', '.join(map(str, lines))}. Please ensure it is unique"
            )
        updated = text[: starts[0]] + new + text[starts[0] + len(old) :]
        self.entries.apply({path.canonical: (FILE, _encode(updated))}, [])
        lines = split_lines(updated)
        line = text.count("\n", 0, starts[0]) + 1
        lo, hi = max(1, line - 4), min(len(lines), line + new.count("\n") + 4)
        snippet = numbered(lines[lo - 1 : hi], lo)
        return "The memory file has been edited." + ("\n" + snippet if lines else "")

    def insert(self, tool_input: dict) -> str:
        """Insert ``insert_text`` as whole lines after line ``insert_line`` (0 is the top)."""
        path = parse_path(tool_input.get("path"))
        line = tool_input.get("insert_line")
        if not _is_int(line):
            raise ToolError(f"Error: Parameter `insert_line` must be an integer, got {_type_name(line)}.")
        insert_text = self._string(tool_input, "insert_text")
        text = self._file(path)
        if text is None:
            raise ToolError(f"Error: The path {path.given} does not exist")
        parts = text.split("\n")
        pieces = [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
        if not 0 <= line <= len(pieces):
            raise ToolError(
                f"Error: Invalid `insert_line` parameter: {line}. It should be within the range of lines "
                f"of the file: [0, {len(pieces)}]"
            )
        before, after = pieces[:line], pieces[line:]
        if insert_text:
            if before and not before[-1].endswith("\n"):
                before[-1] += "\n"
            if after and not insert_text.endswith("\n"):
                insert_text += "\n"
            updated = "".join(before) + insert_text + "".join(after)
            self.entries.apply({path.canonical: (FILE, _encode(updated))}, [])
        return f"The file {path.given} has been edited."

    def delete(self, tool_input: dict) -> str:
        """Delete a file, or a folder with everything in it; never the root."""
        path = parse_path(tool_input.get("path"))
        if path.is_root:
            raise ToolError("Error: Cannot delete the /memories directory itself")
        kind = self._kind(path)
        if kind is None:
            raise ToolError(f"Error: The path {path.given} does not exist")
        doomed = [path.canonical]
        if kind == FOLDER:
            doomed += list(self.entries.below(path.canonical))
        self.entries.apply({}, doomed)
        return f"Successfully deleted {path.given}"

    def rename(self, tool_input: dict) -> str:
        """Move a file or folder; never onto anything that exists."""
        old = parse_path(tool_input.get("old_path"), "old_path")
        new = parse_path(tool_input.get("new_path"), "new_path")
        if old.is_root:
            raise ToolError("Error: Cannot rename the /memories directory itself")
        kind = self._kind(old)
        if kind is None:
            raise ToolError(f"Error: The path {old.given} does not exist")
        if new.is_root or self.entries.get(new.canonical) is not None:
            raise ToolError(f"Error: The destination {new.given} already exists")
        if new.canonical.startswith(old.canonical + "/"):
            raise ToolError(f"Error: Cannot move {old.given} into itself ({new.given}).")
        if kind == FILE and new.trailing_slash:
            raise ToolError(
                f"Error: Cannot rename {old.given} to {new.given}: "
                f"the destination ends with a slash, which names a folder, and {old.given} is a file."
            )
        put = self._parents_to_make(new.canonical, f"Error: Cannot rename to {new.given}: {{parent}} is not a folder.")
        entry = self.entries.get(old.canonical)
        if entry is None:  # pragma: no cover - _kind just found it
            raise ToolError(f"Error: The path {old.given} does not exist")
        put[new.canonical] = entry
        moved = [old.canonical]
        if kind == FOLDER:
            for key, value in self.entries.below(old.canonical).items():
                put[new.canonical + key[len(old.canonical) :]] = value
                moved.append(key)
        self.entries.apply(put, moved)
        return f"Successfully renamed {old.given} to {new.given}"


class DictEntries(Entries):
    """Entries in a dict: the engine on its own, for trying it (``kv_memory.py:make``)."""

    def __init__(self) -> None:
        self.data: Dict[str, Entry] = {}

    def get(self, path: str) -> Optional[Entry]:
        return self.data.get(path)

    def below(self, path: str) -> Dict[str, Entry]:
        return {k: v for k, v in self.data.items() if k.startswith(path + "/")}

    def apply(self, put: Dict[str, Entry], remove: Iterable[str]) -> None:
        for key in remove:
            self.data.pop(key, None)
        self.data.update(put)

    def clear(self) -> None:
        self.data.clear()


def make() -> KVMemoryTool:
    """The engine over a dict: ``memspec check --not-on-folder --python kv_memory.py:make``."""
    return KVMemoryTool(DictEntries())
