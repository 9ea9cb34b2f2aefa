#!/usr/bin/env python3
"""An independent backend of Claude's memory tool (`memory_20250818`), protocol v1.

Written from the spec text alone (seed 004, spec-revisions/ga-2026.md, spec/rules.json and
spec/decisions.json), without reading the reference implementation or the cases.  Its purpose
is to guard the suite: wherever the spec leaves a point open it deliberately takes a different
option than the reference, so that a case which checks the reference's choice instead of the
spec shows up as a failure here.

    python3 memory.py --mode folder {memories}   # real files and folders in that folder
    python3 memory.py --mode kv                  # an in-process dict of path -> bytes
    python3 memory.py --mode folder --overwrite {memories}  # create overwrites a file (GA)

Variant options, each a choice the spec leaves to the backend except the deliberate fault
--no-error-flag (see "Variant options" below); they combine with each other and with either
mode (--vanishing-parents: kv only):

    --crlf-hidden             file views drop one `\\r` at the end of each shown line
    --numbering colon         file views number lines `{n:>4}: {line}` (default `tab`:
                              the page's `{n:>6}\\t{line}`)
    --vanishing-parents       kv mode only: keys only, a folder is a prefix of some key
    --not-found TEMPLATE      every "does not exist" error worded TEMPLATE, `{path}` replaced
                              (e.g. 'Error: path not found: {path}')
    --no-error-flag           those "does not exist" errors answered with is_error false
                              (a deliberate fault: errors.is-error-flag is a MUST)
    --size-cap BYTES          create, str_replace and insert refuse to leave a file larger
                              than BYTES bytes

    python3 memory.py --mode kv --vanishing-parents --size-cap 100000
    python3 memory.py --mode folder --numbering colon --crlf-hidden {memories}

Standard library only (Python 3.11).

What it follows to the letter (rules.json, MUST and SHOULD)
------------------------------------------------------------
- every string the page gives: the two view headers, `{n:>6}\\t{line}` lines, the 999,999-line
  text, the does-not-exist texts of each command (with and without `Error: ` / the period, as
  the page writes them), `File created successfully at: {path}`, `Error: File {path} already
  exists`, the two str_replace refusals, the insert range error, the delete/rename texts;
- tab between size and path, sizes with a unit suffix, depth 2, hidden items and node_modules
  left out at both levels, `is_error: true` on every error;
- never escaping /memories: `..` segments, backslashes, percent-encoded sequences, NUL and
  paths outside /memories are refused before anything is touched; a symbolic link whose target
  leaves the folder is never followed (folder mode); the root can be neither deleted nor
  renamed; create and rename never overwrite; delete is recursive; str_replace needs exactly
  one occurrence; `[start, -1]` means to the end (GA); `new_str` may be omitted (GA);
  insert_line 0 inserts at the top (GA); the first view of an empty store is a listing (GA).

Decisions (spec/decisions.json): the option taken here, and why the spec allows it
------------------------------------------------------------------------------------
decide.final-newline      OTHER. A final `\\n` starts a numbered empty last line (like the
                          Python SDK): `a\\nb\\n` has 3 lines, an empty file is one empty line
                          `     1\\t`. The page never says how a final newline counts; its
                          example output is a fragment. Used everywhere (view, limit,
                          view_range, insert's n_lines).
decide.line-limit-count   OTHER as a consequence: 999,999 lines + final newline = 1,000,000
                          lines, refused with the page's text. The limit still applies under
                          view_range (the page: "Files with more than 999,999 lines should
                          return an error" is about the file, so the same as the reference).
decide.view-range         OTHER. 1-indexed inclusive, -1 = to the end (GA states both). An end
                          past the last line is clamped to it (the SDKs do the same); start < 1
                          or past the end, end < start (not -1), or a malformed range are
                          errors in this backend's own wording; on a folder view_range is
                          ignored and the listing shown; `null` is refused as malformed. The
                          page gives no error string and no folder semantics.
decide.listing-order      OTHER. Breadth-first: the folder's own entries first, then the
                          entries of each of its subfolders; names sorted case-insensitively.
                          The page only shows a flat example.
decide.folder-marker      OTHER. No trailing `/` on folder entries. The page's template is
                          `{size}\\t{path}/{filename}` with no marker.
decide.size-format        OTHER. `ls -lh` style (GNU human_ceiling, base 1024): below 1024 the
                          byte count with `B` (`7B`, kept because rules.json's summary asks for
                          a unit suffix); above, one decimal only below 10 (`1.0K`, `4.0K`,
                          `9.9K`), whole numbers from 10 on (`12K`, `640K`, `1.2M`), always
                          rounded UP. Reproduces every size the page shows (`4.0K`, `1.5K`,
                          `2.0K`, `5.5K`, `1.2M`) and is what "human-readable" means to ls/du.
decide.folder-size        OTHER. Folder mode: the folder's own st_size (4096 -> `4.0K` on ext4,
                          exactly the page's `4.0K\\t/memories`, whose files add up to 3.5K).
                          kv mode has no inode: a fixed 4096 (`4.0K`).
decide.listing-exclusions OTHER where open. Hidden items and node_modules are left out at every
                          level (the page's header says so). Symbolic links ARE listed (as the
                          link, lstat size, never followed or descended into), FIFOs and other
                          special files are listed with their lstat size, names that are not
                          UTF-8 are listed with `\\xNN` escapes. The page says nothing of these.
decide.create-parents     SAME. create makes missing parent folders. The page has no mkdir, and
                          in kv mode folders are key prefixes anyway (GA: "/memories is a prefix
                          your handler maps onto ... keys in a database"); refusing would make
                          folder mode disagree with kv mode.
decide.create-trailing-slash OTHER. `create /memories/x/` creates the file `x` (as the SDKs do);
                          the page defines no such error.
decide.create-parent-not-folder OTHER. kv mode: allowed, a key `a.txt/x.txt` lives beside the
                          file `a.txt` (keys, not folders: GA A13). Folder mode: impossible on
                          disk, refused in this backend's own wording.
decide.create-onto-folder OTHER. An existing folder (or /memories) is refused with this
                          backend's own wording ("a directory already exists"); the page's
                          string says "File", and there is no file.  Still an error, nothing
                          changes (create.no-overwrite).
decide.trailing-slash     OTHER. Trailing and repeated slashes are ignored everywhere, also on a
                          file: `view /memories/notes.txt/` shows the file (as the SDKs do), and
                          rename of a file to `new/` makes the file `new`.
decide.root-delete        OTHER wording (the page gives none; GA A7 only says reject).
decide.root-rename        OTHER wording for the root as old_path (GA A8 gives no string). Root as
                          new_path keeps the page's destination-exists string (rename.exists
                          covers every existing destination).
decide.rename-into-itself OTHER. kv mode: allowed and meaningful, a prefix rewrite (`a/x` ->
                          `a/b/x`). Folder mode: refused in this backend's own wording (the OS
                          cannot do it).
decide.rename-parents     OTHER. Destination parents are made BEFORE the source is looked up
                          (as the SDKs do), so a rename of a missing source may leave the new
                          empty parent folders behind (folder mode); the page says nothing about
                          side effects of a failed rename. A file in the way: kv mode allows it
                          (keys), folder mode refuses in its own wording.
decide.rename-check-order OTHER. Destination-exists is checked before source-missing (as the SDKs
                          do); the page orders neither.
decide.path-grammar       OTHER where open. `..` anywhere, backslashes, NUL, any `%XX` sequence
                          (stricter than the reference: `%25` too) and paths outside /memories
                          are refused (the page: reject `../`, `..\\`, watch `%2e%2e%2f`,
                          validate the prefix). `.` segments are NOT refused, they are dropped
                          (`/memories/./a` = `/memories/a`): not a traversal. Control characters
                          other than NUL, Unicode look-alikes and long names are accepted as
                          literal characters (they cannot escape; the OS answers ENAMETOOLONG).
                          Wording is this backend's own, without an `Error: ` prefix.
decide.symlinks           OTHER. Folder mode follows a symbolic link (leaf or intermediate) when
                          its fully resolved target stays inside the memory folder (pathlib
                          resolve()+relative_to(), which the page recommends) and refuses it
                          otherwise. delete and rename act on a link itself, never its target.
decide.non-utf8           OTHER. str_replace and insert work on bytes: every byte outside the
                          edit is kept. view refuses (rules.json view.file.content asks for
                          verbatim content, which JSON cannot carry); the snippet after an edit
                          shows U+FFFD for undecodable bytes.
decide.special-files      SAME behaviour (refused for view/str_replace/insert, never opened),
                          OTHER wording; listed (see listing-exclusions).
decide.crlf               SAME: bytes verbatim, split on `\\n` only (rules.json's summary of
                          view.file.content forbids trimming, so the `\\r` stays).
decide.str-replace-occurrences OTHER. Occurrences are counted non-overlapping (Python
                          str.count: `aa` occurs once in `aaa`, so it is replaced); the line list
                          has one number per occurrence, duplicates kept (`1, 1, 3`).
decide.str-replace-empty-old-str OTHER wording, checked before the file is looked up.
decide.str-replace-snippet OTHER. `The memory file has been edited.` + ` Here is a snippet of the
                          edited file:` + newline + the lines from 2 before the change to 2
                          after its end. The page only says "followed by a snippet".
decide.insert-lines       OTHER. Lines as in final-newline (the phantom empty line counts, so
                          `a\\nb\\n` has n_lines 3); insert_text minus one trailing `\\n` is
                          spliced in as whole lines after line insert_line; an empty
                          insert_text inserts one empty line.
decide.malformed-input    OTHER. Own wording, no `Error: ` prefix. Unknown extra fields are
                          REFUSED (not ignored); `insert_line` and view_range elements also
                          accept integral floats (`2.0`) and decimal strings (`"2"`), as both
                          SDKs do; `new_str: null` is refused (GA only makes an OMITTED new_str
                          optional).
decide.error-prefix       OTHER. The page's strings exactly as worded; every other error is
                          worded here WITHOUT an `Error: ` prefix.
decide.durability         OTHER. No lock and no fsync. Edits still go through a hidden temp file
                          + rename (so a hard link to outside is never written through); create
                          uses O_CREAT|O_EXCL|O_NOFOLLOW.
decide.success-flag       OTHER. `is_error` is left out of successful replies (the protocol
                          reads a missing flag as false).
decide.integers           OTHER. Any JSON integer (no 64-bit bound), integral floats and decimal
                          strings are accepted and echoed in decimal.
decide.echo               OTHER. Messages and listing lines echo the CANONICAL path (repeated
                          and trailing slashes and `.` segments removed: `/memories/a/` is
                          echoed `/memories/a`); the page's templates say `{path}`, not "as
                          sent". old_str is echoed verbatim.
decide.io-failure         OTHER wording, `strerror` only, never a host path.
decide.hidden-direct      OTHER. Paths with a segment starting with `.` or named node_modules
                          are refused: the store serves no hidden items at all (and keeps its
                          own temp files hidden that way).
decide.empty-root         SAME in substance (GA A3 makes it a MUST): header + one line for the
                          root, with the folder size of decide.folder-size (`4.0K` on ext4).
decide.str-replace-new-str SAME (GA A5: an omitted new_str deletes old_str), but null refused.
decide.hard-links         OTHER. A hard-linked file inside the root is read like any other file;
                          edits replace it through a temp file, so the other names keep their
                          old content.

Variant options: what each flag changes, and why the spec allows it
-------------------------------------------------------------------
Off by default; without them the backend is exactly as described above.
--crlf-hidden             decide.crlf OTHER: a view (and the snippet after str_replace) shows
                          each line without one trailing `\\r`, so `p\\r\\nq` is shown as the
                          lines `p` and `q`. The bytes stored are untouched (create, str_replace
                          and insert still work on the exact bytes; str_replace still needs the
                          `\\r` in old_str). The page gives only `{line_numbers}{tab}{content}`
                          and never mentions `\\r`; how a CRLF line is displayed is open.
--numbering colon         `{n:>4}: {line}` instead of `{n:>6}\\t{line}` in every numbered view
                          (whole, ranged, the snippet). Numbers stay 1-indexed. The return
                          strings are recommendations (GA A11: "you can return different
                          strings if your application needs to"), so this is a SHOULD miss at
                          most, never a MUST one.
--vanishing-parents       decide.key-value-folders, the store-of-keys option (GA A13: "keys in a
                          database"). Plain kv mode keeps every folder it ever made (create's
                          parents, rename's destination parents) until deleted, even empty,
                          and refuses create onto a folder. With this flag only keys are
                          stored: a folder exists while some key lies under it and vanishes
                          with its last key (delete or rename away), so there is no empty
                          folder; create onto a path that is only a prefix makes a key there,
                          so the file /memories/a and the file /memories/a/b coexist (in either
                          order). Such a path views as the file; a listing shows it once, with
                          the file's size, and lists the keys under it. delete and rename act
                          on the key and every key under it. Folder mode refuses the flag.
--not-found TEMPLATE      Every "does not exist" error (view, str_replace, insert, delete, the
                          rename source; also str_replace/insert on a folder, where the page
                          uses the same string) is TEMPLATE with `{path}` replaced by the
                          canonical path. Return strings are recommendations (GA A11); a
                          wording SHOULD miss.
--no-error-flag           Those "does not exist" errors (page wording or --not-found's) come
                          back with is_error false. This is NOT allowed (GA A9: "set is_error
                          to true"): it exists to check that a harness still reads the path as
                          absent from the text and reports only the flag.
--size-cap BYTES          The page's security advice ("Consider tracking memory file sizes and
                          preventing files from growing too large"; GA: "Track memory file
                          sizes and cap how large a file can grow"). create (also an
                          overwriting one), str_replace and insert refuse, is_error true and
                          nothing written, when the file would end up larger than BYTES bytes:
                          `Error: file {path} would exceed the {BYTES}-byte limit ({n} bytes);
                          nothing was written.` Neither revision gives a string for a cap.
                          Files already larger (put there another way) can still be viewed,
                          renamed and deleted.
"""

import errno
import fcntl
import json
import os
import re
import shutil
import stat
import sys

sys.set_int_max_str_digits(0)

ROOT = "/memories"
LINE_LIMIT = 999_999
COMMANDS = ("view", "create", "str_replace", "insert", "delete", "rename")
FIELDS = {
    "view": {"path": True, "view_range": False},
    "create": {"path": True, "file_text": True},
    "str_replace": {"path": True, "old_str": True, "new_str": False},
    "insert": {"path": True, "insert_line": True, "insert_text": True},
    "delete": {"path": True},
    "rename": {"old_path": True, "new_path": True},
}
PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")


class Fail(Exception):
    """An error answer (is_error true) with its text."""


class NotFound(Fail):
    """A "does not exist" error (with --no-error-flag: answered with is_error false)."""


def json_type(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def shown(p):
    """A raw (refused) path made printable for a message."""
    out = []
    for c in p:
        if c.isprintable() and not 0xD800 <= ord(c) <= 0xDFFF:
            out.append(c)
        else:
            out.append(c.encode("unicode_escape", "backslashreplace").decode("ascii", "replace"))
    return "".join(out)


def as_int(v):
    """insert_line / view_range element: ints, integral floats, decimal strings."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        if v == v and v not in (float("inf"), float("-inf")) and v.is_integer():
            return int(v)
        return None
    if isinstance(v, str) and re.fullmatch(r"[+-]?[0-9]+", v):
        return int(v)
    return None


def human(n):
    """ls -lh sizes (GNU human_ceiling, powers of 1024), with `B` below 1024."""
    if n < 1024:
        return f"{n}B"
    for i, unit in enumerate("KMGTPEZY", 1):
        d = 1024**i
        tenths = -(-n * 10 // d)
        if tenths < 100:
            return f"{tenths // 10}.{tenths % 10}{unit}"
        whole = -(-n // d)
        if whole < 1024:
            return f"{whole}{unit}"
    return f"{-(-n // 1024 ** 8)}Y"


def parse_path(p, field="path"):
    """Validate a memory path; return its segments (empty for the root)."""
    if not isinstance(p, str):
        raise Fail(f"Invalid tool input: `{field}` should be a string, not {json_type(p)}.")
    if any(0xD800 <= ord(c) <= 0xDFFF for c in p):
        raise Fail(f"Access denied: the path {shown(p)} is not valid Unicode.")
    if "\x00" in p:
        raise Fail(f"Access denied: the path {shown(p)} contains a NUL character.")
    if not (p == ROOT or p.startswith(ROOT + "/")):
        raise Fail(f"Access denied: {shown(p)} is outside the memory directory; "
                   f"paths must be /memories or begin with /memories/.")
    if "\\" in p:
        raise Fail(f"Access denied: the path {shown(p)} contains a backslash.")
    if PERCENT.search(p):
        raise Fail(f"Access denied: the path {shown(p)} contains a percent-encoded sequence.")
    raw = p.split("/")[2:]
    if ".." in raw:
        raise Fail(f"Access denied: the path {shown(p)} contains a `..` traversal segment.")
    segs = [s for s in raw if s not in ("", ".")]
    for s in segs:
        if s.startswith(".") or s == "node_modules":
            raise Fail(f"Access denied: the path {shown(p)} names a hidden item or node_modules, "
                       f"which this memory store does not serve.")
    return tuple(segs)


def canon(segs):
    return ROOT + "".join("/" + s for s in segs)


def split_lines(data):
    """Lines of a file: split on \\n, a final \\n starts an empty last line."""
    return data.split(b"\n")


def dec(b):
    return b.decode("utf-8", "replace")


def numbered(lines, first, numbering="tab", crlf_hidden=False):
    """Numbered lines of a file view (and of the snippet after str_replace).

    numbering "tab" is the page's `{n:>6}\\t{line}`; "colon" is `{n:>4}: {line}`.
    crlf_hidden drops one `\\r` at the end of each shown line (the bytes stored stay as they are).
    """
    if crlf_hidden:
        lines = [l[:-1] if l.endswith(b"\r") else l for l in lines]
    if numbering == "colon":
        return "\n".join(f"{i:>4}: {dec(l)}" for i, l in enumerate(lines, first))
    return "\n".join(f"{i:>6}\t{dec(l)}" for i, l in enumerate(lines, first))


# --------------------------------------------------------------------------- storage: kv


class KV:
    name = "kv"

    def __init__(self):
        self.reset()

    def reset(self):
        self.files = {}
        self.dirs = set()

    def kind(self, segs, follow=True):
        if not segs:
            return "dir"
        if segs in self.files:
            return "file"
        if segs in self.dirs:
            return "dir"
        return "missing"

    def read(self, segs):
        return self.files[segs]

    def write(self, segs, data):
        self.files[segs] = data

    def create(self, segs, data, cmd):
        for i in range(1, len(segs)):
            self.dirs.add(segs[:i])
        self.files[segs] = data

    def prepare_parents(self, segs, shown_path):
        pass  # folders are key prefixes: rename() adds them once the source is found

    def delete(self, segs):
        n = len(segs)
        for k in [k for k in self.files if k[:n] == segs]:
            del self.files[k]
        for k in [k for k in self.dirs if k[:n] == segs]:
            self.dirs.discard(k)

    def rename(self, old, new, cmd):
        n = len(old)
        moved_f = {k: v for k, v in self.files.items() if k[:n] == old}
        moved_d = {k for k in self.dirs if k[:n] == old}
        for k in moved_f:
            del self.files[k]
        self.dirs -= moved_d
        for i in range(1, len(new)):
            self.dirs.add(new[:i])
        for k, v in moved_f.items():
            self.files[new + k[n:]] = v
        for k in moved_d:
            self.dirs.add(new + k[n:])

    def rename_into_itself_ok(self):
        return True

    def dir_size(self, segs):
        return 4096

    def children(self, segs):
        """(name, size, is_dir) of the visible entries of a folder."""
        n = len(segs)
        names = {}
        for k, v in self.files.items():
            if len(k) == n + 1 and k[:n] == segs:
                names.setdefault(k[n], [None, False])[0] = len(v)
        for k in self.dirs:
            if len(k) == n + 1 and k[:n] == segs:
                names.setdefault(k[n], [None, False])[1] = True
        out = []
        for name, (size, is_dir) in names.items():
            out.append((name, size if size is not None else 4096, is_dir))
        return out


class KVKeys(KV):
    """--vanishing-parents: only keys exist.  A folder is nothing but the prefix of some key:
    it exists while a key lies under it and vanishes with the last one, so there is no empty
    folder (not even after a rename or delete empties it).  A key may also be the prefix of
    other keys: the file /memories/a and the file /memories/a/b live side by side, and the
    path then shows as the file (view) and as a folder entry with its file size (listings)."""

    name = "kv-keys"

    def reset(self):
        self.files = {}
        self.dirs = set()  # stays empty: no folder is ever stored

    def kind(self, segs, follow=True):
        if not segs:
            return "dir"
        if segs in self.files:
            return "file"
        n = len(segs)
        if any(len(k) > n and k[:n] == segs for k in self.files):
            return "dir"
        return "missing"

    def key_exists(self, segs):
        return segs in self.files

    def create(self, segs, data, cmd):
        self.files[segs] = data

    def rename(self, old, new, cmd):
        n = len(old)
        moved = {k: v for k, v in self.files.items() if k[:n] == old}
        for k in moved:
            del self.files[k]
        for k, v in moved.items():
            self.files[new + k[n:]] = v

    def children(self, segs):
        n = len(segs)
        names = {}
        for k, v in self.files.items():
            if len(k) > n and k[:n] == segs:
                e = names.setdefault(k[n], [None, False])
                if len(k) == n + 1:
                    e[0] = len(v)
                else:
                    e[1] = True
        return [(name, size if size is not None else 4096, is_dir)
                for name, (size, is_dir) in names.items()]


# ----------------------------------------------------------------------- storage: folder


class Escape(Exception):
    pass


class Folder:
    name = "folder"

    def __init__(self, path):
        os.makedirs(path, exist_ok=True)
        self.root = os.path.realpath(path)

    def inside(self, real):
        return real == self.root or real.startswith(self.root + os.sep)

    def reset(self):
        for entry in os.scandir(self.root):
            p = os.path.join(self.root, entry.name)
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(p)
            else:
                os.unlink(p)

    # Resolution.  Returns the real folder that holds the leaf, or None when a component is
    # missing or not a folder.  Links are followed only when their full resolution stays inside.
    def _follow(self, p, segs_so_far):
        real = os.path.realpath(p)
        if not self.inside(real):
            raise Fail(f"Access denied: {canon(segs_so_far)} is a symbolic link that leads "
                       f"outside the memory directory.")
        return real

    def parent_dir(self, segs, make=False, shown_path=None):
        cur = self.root
        for i, s in enumerate(segs[:-1]):
            p = os.path.join(cur, s)
            try:
                st = os.lstat(p)
            except FileNotFoundError:
                if not make:
                    return None
                os.mkdir(p, 0o700)
                cur = p
                continue
            except NotADirectoryError:
                return None
            if stat.S_ISLNK(st.st_mode):
                real = self._follow(p, segs[: i + 1])
                if os.path.isdir(real):
                    cur = real
                    continue
                if make:
                    raise Fail(f"Cannot place {shown_path}: {canon(segs[: i + 1])} is not a "
                               f"directory.")
                return None
            if stat.S_ISDIR(st.st_mode):
                cur = p
                continue
            if make:
                raise Fail(f"Cannot place {shown_path}: {canon(segs[: i + 1])} is a file, "
                           f"so it cannot contain other entries.")
            return None
        return cur

    def locate(self, segs, follow=True):
        """(kind, host path). kind: missing, file, dir, other, link (only if not follow)."""
        if not segs:
            return "dir", self.root
        parent = self.parent_dir(segs)
        if parent is None:
            return "missing", None
        p = os.path.join(parent, segs[-1])
        try:
            st = os.lstat(p)
        except (FileNotFoundError, NotADirectoryError):
            return "missing", None
        if stat.S_ISLNK(st.st_mode):
            if not follow:
                return "link", p
            real = self._follow(p, segs)
            try:
                st = os.stat(real)
            except (FileNotFoundError, NotADirectoryError):
                return "missing", None
            p = real
        if stat.S_ISDIR(st.st_mode):
            return "dir", p
        if stat.S_ISREG(st.st_mode):
            return "file", p
        return "other", p

    def kind(self, segs, follow=True):
        return self.locate(segs, follow)[0]

    def read(self, segs):
        kind, p = self.locate(segs)
        fd = os.open(p, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise Fail(f"Cannot open {canon(segs)}: it is not a regular file.")
            chunks = []
            while True:
                b = os.read(fd, 1 << 20)
                if not b:
                    break
                chunks.append(b)
            return b"".join(chunks)
        finally:
            os.close(fd)

    def write(self, segs, data):
        kind, p = self.locate(segs)
        folder = os.path.dirname(p)
        tmp = os.path.join(folder, f".indep-tmp-{os.getpid()}-{os.urandom(6).hex()}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            try:
                mode = stat.S_IMODE(os.lstat(p).st_mode)
                os.fchmod(fd, mode)
            except OSError:
                pass
            view = memoryview(data)
            while view:
                n = os.write(fd, view)
                view = view[n:]
        except BaseException:
            os.close(fd)
            os.unlink(tmp)
            raise
        os.close(fd)
        try:
            os.replace(tmp, p)
        except BaseException:
            os.unlink(tmp)
            raise

    def create(self, segs, data, cmd):
        parent = self.parent_dir(segs, make=True, shown_path=canon(segs))
        p = os.path.join(parent, segs[-1])
        fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            view = memoryview(data)
            while view:
                n = os.write(fd, view)
                view = view[n:]
        finally:
            os.close(fd)

    def prepare_parents(self, segs, shown_path):
        self.parent_dir(segs, make=True, shown_path=shown_path)

    def delete(self, segs):
        kind, p = self.locate(segs, follow=False)
        if kind == "dir":
            shutil.rmtree(p)
        else:
            os.unlink(p)

    def rename(self, old, new, cmd):
        _, src = self.locate(old, follow=False)
        parent = self.parent_dir(new)
        dst = os.path.join(parent, new[-1])
        if os.path.lexists(dst):
            raise Fail(f"Error: The destination {canon(new)} already exists")
        os.rename(src, dst)

    def rename_into_itself_ok(self):
        return False

    def dir_size(self, segs):
        _, p = self.locate(segs)
        return os.lstat(p).st_size

    def children(self, segs):
        _, p = self.locate(segs)
        out = []
        try:
            it = list(os.scandir(p))
        except OSError:
            return out
        for e in it:
            name = os.fsencode(e.name).decode("utf-8", "backslashreplace")
            try:
                st = e.stat(follow_symlinks=False)
            except OSError:
                continue
            out.append((name, st.st_size, stat.S_ISDIR(st.st_mode), e.name))
        return out


# ------------------------------------------------------------------------------- commands


class Memory:
    def __init__(self, store, overwrite=False, numbering="tab", crlf_hidden=False,
                 not_found=None, size_cap=None):
        self.store = store
        # GA A1: "overwriting instead is a valid implementation choice" for create onto an
        # existing file; the beta page allows only the error.
        self.overwrite = overwrite
        self.numbering = numbering
        self.crlf_hidden = crlf_hidden
        self.not_found = not_found  # a template with {path}, or None for the page's texts
        self.size_cap = size_cap

    def numbered(self, lines, first):
        return numbered(lines, first, self.numbering, self.crlf_hidden)

    def missing(self, spec_text, path):
        """The "does not exist" error: the page's text for the command, or --not-found's."""
        if self.not_found is not None:
            return NotFound(self.not_found.replace("{path}", path))
        return NotFound(spec_text)

    def check_size(self, p, data):
        """--size-cap: refuse (before anything is written) to make a file larger than the cap."""
        if self.size_cap is not None and len(data) > self.size_cap:
            raise Fail(f"Error: file {p} would exceed the {self.size_cap}-byte limit "
                       f"({len(data)} bytes); nothing was written.")

    def call(self, inp):
        if not isinstance(inp, dict):
            raise Fail(f"Invalid tool input: expected a JSON object, received {json_type(inp)}.")
        if "command" not in inp:
            raise Fail("Invalid tool input: the `command` field is missing.")
        cmd = inp["command"]
        if not isinstance(cmd, str):
            raise Fail(f"Invalid tool input: `command` should be a string, not {json_type(cmd)}.")
        if cmd not in COMMANDS:
            raise Fail(f"Unsupported command {shown(cmd)!r}; the memory tool supports "
                       f"view, create, str_replace, insert, delete and rename.")
        fields = FIELDS[cmd]
        for k in inp:
            if k != "command" and k not in fields:
                raise Fail(f"Invalid tool input: unexpected field `{shown(str(k))}` for the "
                           f"{cmd} command.")
        for k, required in fields.items():
            if required and k not in inp:
                raise Fail(f"Invalid tool input: `{k}` is required for the {cmd} command.")
        root = getattr(self.store, "root", None)
        if cmd == "view" or root is None:
            return getattr(self, "do_" + cmd)(inp)
        # A folder shared by several processes (agents) is edited by one at a time: str_replace
        # and insert read, edit and write back, and two at once would undo each other's edit.
        lock = os.open(root, os.O_RDONLY)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            return getattr(self, "do_" + cmd)(inp)
        finally:
            os.close(lock)

    # ---- view

    def do_view(self, inp):
        segs = parse_path(inp["path"])
        rng = None
        if "view_range" in inp:
            vr = inp["view_range"]
            ok = isinstance(vr, list) and len(vr) == 2
            if ok:
                a, b = as_int(vr[0]), as_int(vr[1])
                ok = a is not None and b is not None
            if not ok:
                raise Fail("Invalid view_range: it must be a list of two integers "
                           "[start_line, end_line] (end_line -1 means the end of the file).")
            rng = (a, b)
        p = canon(segs)
        kind = self.store.kind(segs)
        if kind == "missing":
            raise self.missing(f"The path {p} does not exist. Please provide a valid path.", p)
        if kind == "dir":
            return self.listing(segs)
        if kind != "file":
            raise Fail(f"Cannot open {p}: it is not a regular file.")
        data = self.store.read(segs)
        n = data.count(b"\n") + 1
        if n > LINE_LIMIT:
            raise Fail(f"File {p} exceeds maximum line limit of 999,999 lines.")
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            raise Fail(f"Cannot display {p}: it is not a UTF-8 text file.")
        lines = split_lines(data)
        first = 1
        if rng is not None:
            a, b = rng
            if a < 1 or a > n:
                raise Fail(f"Invalid view_range [{a}, {b}]: the start line must be between 1 "
                           f"and {n}, the number of lines in {p}.")
            if b == -1 or b > n:
                b = n
            if b < a:
                raise Fail(f"Invalid view_range [{a}, {rng[1]}]: the end line must not be "
                           f"before the start line (use -1 for the end of the file).")
            lines = lines[a - 1 : b]
            first = a
        return f"Here's the content of {p} with line numbers:\n" + self.numbered(lines, first)

    def listing(self, segs):
        st = self.store
        p = canon(segs)
        out = [f"Here're the files and directories up to 2 levels deep in {p}, "
               f"excluding hidden items and node_modules:",
               f"{human(st.dir_size(segs))}\t{p}"]

        def visible(entries):
            keep = [e for e in entries if not e[0].startswith(".") and e[0] != "node_modules"]
            return sorted(keep, key=lambda e: (e[0].casefold(), e[0]))

        level1 = visible(st.children(segs))
        for e in level1:
            out.append(f"{human(e[1])}\t{p}/{e[0]}")
        for e in level1:
            if not e[2]:
                continue
            raw = e[3] if len(e) > 3 else e[0]
            sub = segs + (raw,)
            for f in visible(st.children(sub)):
                out.append(f"{human(f[1])}\t{p}/{e[0]}/{f[0]}")
        return "\n".join(out)

    # ---- create

    def do_create(self, inp):
        segs = parse_path(inp["path"])
        text = inp["file_text"]
        if not isinstance(text, str):
            raise Fail(f"Invalid tool input: `file_text` should be a string, not "
                       f"{json_type(text)}.")
        data = enc(text, "file_text")
        p = canon(segs)
        kind = self.store.kind(segs, follow=False)
        if kind == "dir" and segs and getattr(self.store, "key_exists", None) is not None:
            # --vanishing-parents: a folder is only a prefix, a key may sit on it
            kind = "file" if self.store.key_exists(segs) else "missing"
        if kind == "dir":
            raise Fail(f"Cannot create {p}: a directory already exists at this path.")
        if kind == "file" and self.overwrite:
            self.check_size(p, data)
            self.store.write(segs, data)
            return f"File {p} overwritten."
        if kind != "missing":
            raise Fail(f"Error: File {p} already exists")
        self.check_size(p, data)
        try:
            self.store.create(segs, data, "create")
        except FileExistsError:
            raise Fail(f"Error: File {p} already exists")
        return f"File created successfully at: {p}"

    # ---- str_replace

    def do_str_replace(self, inp):
        segs = parse_path(inp["path"])
        old = inp["old_str"]
        if not isinstance(old, str):
            raise Fail(f"Invalid tool input: `old_str` should be a string, not {json_type(old)}.")
        new = inp.get("new_str", "")
        if not isinstance(new, str):
            raise Fail(f"Invalid tool input: `new_str` should be a string when given, not "
                       f"{json_type(new)}.")
        if old == "":
            raise Fail("Nothing to replace: `old_str` is empty; give the exact text to replace.")
        old_b, new_b = enc(old, "old_str"), enc(new, "new_str")
        p = canon(segs)
        kind = self.store.kind(segs)
        if kind in ("missing", "dir"):
            raise self.missing(f"Error: The path {p} does not exist. Please provide a valid "
                               f"path.", p)
        if kind != "file":
            raise Fail(f"Cannot open {p}: it is not a regular file.")
        data = self.store.read(segs)
        positions = []
        i = data.find(old_b)
        while i != -1:
            positions.append(i)
            i = data.find(old_b, i + len(old_b))
        if not positions:
            raise Fail(f"No replacement was performed, old_str `{old}` did not appear "
                       f"verbatim in {p}.")
        if len(positions) > 1:
            nums = ", ".join(str(data.count(b"\n", 0, q) + 1) for q in positions)
            raise Fail(f"No replacement was performed. Multiple occurrences of old_str "
                       f"`{old}` in lines: {nums}. Please ensure it is unique")
        at = positions[0]
        result = data[:at] + new_b + data[at + len(old_b):]
        self.check_size(p, result)
        self.store.write(segs, result)
        lines = split_lines(result)
        start = data.count(b"\n", 0, at) + 1
        end = start + new_b.count(b"\n")
        lo, hi = max(1, start - 2), min(len(lines), end + 2)
        return ("The memory file has been edited. Here is a snippet of the edited file:\n"
                + self.numbered(lines[lo - 1 : hi], lo))

    # ---- insert

    def do_insert(self, inp):
        segs = parse_path(inp["path"])
        raw_line = inp["insert_line"]
        line = as_int(raw_line)
        if line is None:
            raise Fail(f"Invalid tool input: `insert_line` should be an integer, not "
                       f"{json_type(raw_line)}.")
        text = inp["insert_text"]
        if not isinstance(text, str):
            raise Fail(f"Invalid tool input: `insert_text` should be a string, not "
                       f"{json_type(text)}.")
        text_b = enc(text, "insert_text")
        p = canon(segs)
        kind = self.store.kind(segs)
        if kind in ("missing", "dir"):
            raise self.missing(f"Error: The path {p} does not exist", p)
        if kind != "file":
            raise Fail(f"Cannot open {p}: it is not a regular file.")
        data = self.store.read(segs)
        lines = split_lines(data)
        n = len(lines)
        if line < 0 or line > n:
            raise Fail(f"Error: Invalid `insert_line` parameter: {line}. It should be within "
                       f"the range of lines of the file: [0, {n}]")
        if text_b.endswith(b"\n"):
            text_b = text_b[:-1]
        result = b"\n".join(lines[:line] + text_b.split(b"\n") + lines[line:])
        self.check_size(p, result)
        self.store.write(segs, result)
        return f"The file {p} has been edited."

    # ---- delete

    def do_delete(self, inp):
        segs = parse_path(inp["path"])
        if not segs:
            raise Fail("Refused: /memories is the memory root itself and cannot be deleted; "
                       "delete the entries inside it instead.")
        p = canon(segs)
        if self.store.kind(segs, follow=False) == "missing":
            raise self.missing(f"Error: The path {p} does not exist", p)
        self.store.delete(segs)
        return f"Successfully deleted {p}"

    # ---- rename

    def do_rename(self, inp):
        old = parse_path(inp["old_path"], "old_path")
        new = parse_path(inp["new_path"], "new_path")
        if not old:
            raise Fail("Refused: /memories is the memory root itself and cannot be renamed "
                       "or moved.")
        po, pn = canon(old), canon(new)
        st = self.store
        if st.kind(new, follow=False) != "missing":
            raise Fail(f"Error: The destination {pn} already exists")
        into = new[: len(old)] == old
        if into and not st.rename_into_itself_ok():
            if st.kind(old, follow=False) == "missing":
                raise self.missing(f"Error: The path {po} does not exist", po)
            raise Fail(f"Cannot move {po} to {pn}: the destination lies inside the source "
                       f"directory.")
        st.prepare_parents(new, pn)
        if st.kind(old, follow=False) == "missing":
            raise self.missing(f"Error: The path {po} does not exist", po)
        st.rename(old, new, "rename")
        return f"Successfully renamed {po} to {pn}"


def enc(s, field):
    try:
        return s.encode("utf-8")
    except UnicodeEncodeError:
        raise Fail(f"Invalid tool input: `{field}` is not valid Unicode (lone surrogate).")


def clean(s):
    """Text safe for strict JSON readers (no lone surrogates)."""
    return s.encode("utf-8", "backslashreplace").decode("utf-8")


def answer(memory, inp, error_flag_on_missing=True):
    try:
        return memory.call(inp), False
    except NotFound as e:
        return str(e), error_flag_on_missing
    except Fail as e:
        return str(e), True
    except OSError as e:
        what = e.strerror or "operating system error"
        cmd = inp.get("command") if isinstance(inp, dict) else None
        return f"The {shown(str(cmd))} operation failed: {what} (errno {e.errno}).", True
    except RecursionError:
        return "The input is nested too deeply to be handled.", True
    except Exception as e:  # never die on an input
        return f"Internal failure while handling the input: {type(e).__name__}.", True


USAGE = ("usage: memory.py [--overwrite] [--crlf-hidden] [--numbering tab|colon] "
         "[--not-found TEMPLATE] [--no-error-flag] [--size-cap BYTES] "
         "(--mode folder DIR | --mode kv [--vanishing-parents])\n")


def main(argv):
    mode, folder, overwrite = None, None, False
    crlf_hidden, numbering, not_found, error_flag, size_cap = False, "tab", None, True, None
    vanishing = False
    args = list(argv)

    def value(a):
        if "=" in a:
            return a.split("=", 1)[1]
        return args.pop(0) if args else None

    while args:
        a = args.pop(0)
        name = a.split("=", 1)[0]
        if a == "--overwrite":
            overwrite = True
        elif a == "--crlf-hidden":
            crlf_hidden = True
        elif a == "--vanishing-parents":
            vanishing = True
        elif a == "--no-error-flag":
            error_flag = False
        elif name == "--mode":
            mode = value(a)
        elif name == "--numbering":
            numbering = value(a)
            if numbering not in ("tab", "colon"):
                sys.stderr.write(USAGE)
                return 2
        elif name == "--not-found":
            not_found = value(a)
            if not_found is None:
                sys.stderr.write(USAGE)
                return 2
        elif name == "--size-cap":
            v = value(a)
            if v is None or not v.isdigit():
                sys.stderr.write(USAGE)
                return 2
            size_cap = int(v)
        elif a.startswith("--"):
            sys.stderr.write(USAGE)
            return 2
        else:
            folder = a
    if mode == "kv":
        store = KVKeys() if vanishing else KV()
    elif mode == "folder" and folder and not vanishing:
        store = Folder(folder)
    else:
        sys.stderr.write(USAGE)
        return 2
    memory = Memory(store, overwrite, numbering, crlf_hidden, not_found, size_cap)
    out = sys.stdout.buffer
    for raw in sys.stdin.buffer:
        line = raw.decode("utf-8", "replace").strip()
        if not line:
            continue
        try:
            req = json.loads(line)
            if not isinstance(req, dict):
                raise ValueError
            rid = req.get("id")
        except (ValueError, RecursionError):
            m = re.search(r'"id"\s*:\s*(-?[0-9]+)', line)
            rid = int(m.group(1)) if m else None
            reply = {"id": rid, "content": "The request line is not valid JSON.", "is_error": True}
            out.write(json.dumps(reply).encode() + b"\n")
            out.flush()
            continue
        if "control" in req:
            c = req["control"]
            if c == "reset":
                try:
                    store.reset()
                    reply = {"id": rid, "ok": True}
                except OSError:
                    reply = {"id": rid, "ok": False}
            elif c == "hello":
                reply = {"id": rid, "ok": True, "protocol": 1,
                         "backend": f"independent-{store.name}"}
            else:
                reply = {"id": rid, "ok": False}
        else:
            text, is_error = answer(memory, req.get("input"), error_flag)
            reply = {"id": rid, "content": clean(text)}
            if is_error:
                reply["is_error"] = True
        out.write(json.dumps(reply, ensure_ascii=False).encode("utf-8") + b"\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
