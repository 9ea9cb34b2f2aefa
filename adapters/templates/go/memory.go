// The handler: Claude's memory tool (memory_20250818) over a folder. Replace it with your backend.
//
// handle(input) takes the tool_use input (any JSON value) and returns the text Claude reads and
// whether it is an error. Paths are /memories or below it, with no `.`/`..` segment, backslash,
// control character or percent-encoded traversal; a symbolic link is never followed (delete and
// rename act on the link itself); special files and files with other hard links are never opened;
// create and rename never replace anything; /memories itself is neither deleted nor renamed.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"
)

var root string // the host folder that /memories maps to

func open(folder string) error {
	abs, err := filepath.Abs(folder)
	if err == nil {
		err = os.MkdirAll(abs, 0o700)
	}
	root = abs
	return err
}

// reset forgets every memory; the folder itself stays (os.RemoveAll never follows links).
func reset() error {
	entries, err := os.ReadDir(root)
	for _, e := range entries {
		if err == nil {
			err = os.RemoveAll(filepath.Join(root, e.Name()))
		}
	}
	return err
}

type failure string // an answer with is_error true

func handle(input any) (text string, isError bool) {
	defer func() {
		if r := recover(); r != nil {
			if f, ok := r.(failure); ok {
				text, isError = string(f), true
			} else {
				text, isError = fmt.Sprintf("Error: internal error: %v", r), true
			}
		}
	}()
	return run(input), false
}

func fail(format string, args ...any) { panic(failure(fmt.Sprintf(format, args...))) }

// ---- input -------------------------------------------------------------------------------------

var required = map[string][]string{
	"view": {"path"}, "create": {"path", "file_text"}, "str_replace": {"path", "old_str"},
	"insert": {"path", "insert_line", "insert_text"}, "delete": {"path"}, "rename": {"old_path", "new_path"},
}

func typeName(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		if _, ok := integer(v); ok {
			return "an integer"
		}
		return "a non-integer number"
	case string:
		return "a string"
	case []any:
		return "an array"
	}
	return "an object"
}

// integer reads a JSON integer (no fraction, no exponent) of at most 64 bits, clamped to int64.
func integer(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok || strings.ContainsAny(string(n), ".eE") {
		return 0, false
	}
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return i, true
	}
	if _, err := strconv.ParseUint(string(n), 10, 64); err == nil {
		return math.MaxInt64, true
	}
	return 0, false
}

func str(in map[string]any, key string) string {
	s, ok := in[key].(string)
	if !ok {
		fail("Error: Parameter `%s` must be a string, got %s.", key, typeName(in[key]))
	}
	return s
}

func run(input any) string {
	in, ok := input.(map[string]any)
	if !ok {
		fail("Error: The tool input must be a JSON object, got %s.", typeName(input))
	}
	if _, ok := in["command"]; !ok {
		fail("Error: Missing required parameter `command`.")
	}
	cmd := str(in, "command")
	if required[cmd] == nil {
		fail("Error: Unknown command `%s`. Valid commands are: view, create, str_replace, insert, delete, rename.", cmd)
	}
	for _, key := range required[cmd] {
		if _, ok := in[key]; !ok {
			fail("Error: Missing required parameter `%s` for command `%s`.", key, cmd)
		}
	}
	switch cmd {
	case "view":
		return view(in)
	case "create":
		return create(str(in, "path"), str(in, "file_text"))
	case "str_replace":
		return strReplace(in)
	case "insert":
		return insert(in)
	case "delete":
		return remove(str(in, "path"))
	}
	return rename(str(in, "old_path"), str(in, "new_path"))
}

// ---- paths -------------------------------------------------------------------------------------

var encoded = regexp.MustCompile(`(?i)%(25)?(2e|2f|5c|00)`) // also double-encoded: %252e

// lookalikes fold to what they look like; a path that then holds a traversal is refused.
var lookalikes = strings.NewReplacer("\u2024", ".", "\u2025", "..", "\ufe52", ".", "\uff0e", ".",
	"\u2044", "/", "\u2215", "/", "\uff0f", "/", "\u29f5", "\\", "\ufe68", "\\", "\uff3c", "\\")

var traversal = regexp.MustCompile(`\\|/\.\.?(/|$)`)

// where is a checked memory path: its segments below /memories and whether it ends with a slash.
type where struct {
	path  string // as Claude sent it, for messages
	segs  []string
	slash bool
}

func (w where) host() string { return filepath.Join(append([]string{root}, w.segs...)...) }

func canonical(segs []string) string {
	return "/memories" + strings.TrimSuffix("/"+strings.Join(segs, "/"), "/")
}

func parse(p string) where {
	bad := func(why string) { fail("Error: The path %s is not a valid memory path: %s", shown(p), why) }
	switch {
	case strings.IndexFunc(p, isControl) >= 0:
		bad("control characters such as NUL are not allowed.")
	case strings.Contains(p, "\\"):
		bad("backslashes are not allowed.")
	case p != "/memories" && !strings.HasPrefix(p, "/memories/"):
		bad("memory paths must be /memories or start with /memories/.")
	case len(p) > 4096:
		bad("it is longer than 4096 bytes.")
	case encoded.MatchString(p):
		bad("percent-encoded dots, slashes, backslashes and NUL are not allowed.")
	case traversal.MatchString(lookalikes.Replace(p)) && !traversal.MatchString(p):
		bad("characters that look like dots, slashes or backslashes are not allowed.")
	}
	w := where{path: p, slash: strings.HasSuffix(p, "/")}
	for _, s := range strings.Split(p, "/")[2:] {
		if s == "." || s == ".." {
			bad("`.` and `..` segments are not allowed.")
		} else if len(s) > 255 {
			bad("a path segment is longer than 255 bytes.")
		} else if s != "" {
			w.segs = append(w.segs, s)
		}
	}
	w.slash = w.slash && len(w.segs) > 0
	return w
}

const throughLink = "Error: The path %s goes through the symbolic link %s; the memory tool does not follow symbolic links."

const (
	missing = iota
	file
	folder
	link
	other
)

// walk finds what a path names, never following a symbolic link. Folders in the way that are
// missing are made when mkdir is set; a file in the way is reported through inWay (or is missing).
func walk(w where, mkdir bool, inWay func(string)) (int, fs.FileInfo) {
	dir := root
	for i, s := range w.segs {
		at := filepath.Join(dir, s)
		info, err := os.Lstat(at)
		last := i == len(w.segs)-1
		switch {
		case errors.Is(err, fs.ErrNotExist) && !last && mkdir:
			if err := os.Mkdir(at, 0o700); err != nil {
				fail("Error: Cannot create folder %s: %s", canonical(w.segs[:i+1]), osError(err))
			}
		case errors.Is(err, fs.ErrNotExist):
			return missing, nil
		case err != nil:
			fail("Error: Cannot reach %s: %s", w.path, osError(err))
		case info.Mode()&fs.ModeSymlink != 0 && (!last || w.slash):
			fail(throughLink, w.path, canonical(w.segs[:i+1]))
		case last && info.Mode()&fs.ModeSymlink != 0:
			return link, info
		case last && info.IsDir():
			return folder, info
		case last && info.Mode().IsRegular() && w.slash:
			return missing, nil
		case last && info.Mode().IsRegular():
			return file, info
		case last:
			return other, info
		case !info.IsDir():
			if inWay != nil {
				inWay(canonical(w.segs[:i+1]))
			}
			return missing, nil
		}
		dir = at
	}
	info, err := os.Lstat(root)
	if err != nil {
		fail("Error: The memory folder is missing: %s", osError(err))
	}
	return folder, info
}

func isControl(r rune) bool { return r < 0x20 || r >= 0x7f && r < 0xa0 }

// shown writes control characters visibly: `\n`, `\u{0}`.
func shown(p string) string {
	var b strings.Builder
	for _, r := range p {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case isControl(r):
			fmt.Fprintf(&b, `\u{%x}`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func osError(err error) string { // the reason alone: never the host path
	var pe *fs.PathError
	var le *os.LinkError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	} else if errors.As(err, &le) {
		return le.Err.Error()
	}
	return "operation failed"
}

// ---- files -------------------------------------------------------------------------------------

// readText reads a regular file that is UTF-8 and has no other hard link (one could lie outside).
func readText(w where, kind int, info fs.FileInfo, missingText string) string {
	switch kind {
	case missing, folder:
		fail(missingText, w.path)
	case link:
		fail(throughLink, w.path, canonical(w.segs))
	case other:
		fail("Error: The path %s is not a regular file or folder.", w.path)
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok && st.Nlink > 1 {
		fail("Error: The file %s has other hard links, which may lie outside /memories; the memory tool does not read or edit it.", w.path)
	}
	f, err := os.OpenFile(w.host(), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		fail("Error: Cannot read %s: %s", w.path, osError(err))
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		fail("Error: Cannot read %s: %s", w.path, osError(err))
	}
	if !utf8.Valid(data) {
		fail("Error: The file %s is not valid UTF-8 text; the memory tool only reads and edits UTF-8 text files.", w.path)
	}
	return string(data)
}

func writeText(w where, text string) {
	f, err := os.OpenFile(w.host(), os.O_WRONLY|os.O_TRUNC|syscall.O_NOFOLLOW, 0)
	if err == nil {
		_, err = f.WriteString(text)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fail("Error: Cannot write %s: %s", w.path, osError(err))
	}
}

// lines splits on "\n"; a final newline ends the last line instead of starting an empty one.
func lines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

func numbered(all []string, from, to int) string { // lines from..to (1-indexed), one per line
	var b strings.Builder
	for n := from; n <= to; n++ {
		fmt.Fprintf(&b, "\n%6d\t%s", n, all[n-1])
	}
	return b.String()
}

// ---- commands ----------------------------------------------------------------------------------

func view(in map[string]any) string {
	w := parse(str(in, "path"))
	kind, info := walk(w, false, nil)
	rng, ranged := in["view_range"]
	ranged = ranged && rng != nil
	if kind == folder {
		if ranged {
			fail("Error: The `view_range` parameter is not allowed when `path` points to a directory.")
		}
		return listing(w)
	}
	all := lines(readText(w, kind, info, "The path %s does not exist. Please provide a valid path."))
	n := int64(len(all))
	if n > 999_999 {
		fail("File %s exceeds maximum line limit of 999,999 lines.", w.path)
	}
	from, to := int64(1), n
	if ranged {
		pair, _ := rng.([]any)
		if len(pair) != 2 {
			fail("Error: Invalid `view_range`. It should be a list of two integers.")
		}
		a, okA := integer(pair[0])
		b, okB := integer(pair[1])
		if !okA || !okB {
			fail("Error: Invalid `view_range`. It should be a list of two integers.")
		}
		shown := fmt.Sprintf("[%s, %s]", pair[0], pair[1])
		switch {
		case a < 1 || a > n:
			fail("Error: Invalid `view_range`: %s. Its first element `%s` should be within the range of lines of the file: [1, %d]", shown, pair[0], n)
		case b == -1:
		case b > n:
			fail("Error: Invalid `view_range`: %s. Its second element `%s` should be smaller than the number of lines in the file: `%d`", shown, pair[1], n)
		case b < a:
			fail("Error: Invalid `view_range`: %s. Its second element `%s` should be larger or equal than its first `%s`", shown, pair[1], pair[0])
		default:
			to = b
		}
		from = a
	}
	return "Here's the content of " + w.path + " with line numbers:" + numbered(all, int(from), int(to))
}

// listing shows a folder two levels deep: hidden items, node_modules, links and special files are
// left out; a folder's size is the total of the visible files below it; folders end with "/".
func listing(w where) string {
	var out []string
	size := visible(w.host(), 2, canonical(w.segs), &out)
	return fmt.Sprintf("Here're the files and directories up to 2 levels deep in %s, excluding hidden items and node_modules:\n%s\t%s",
		w.path, human(size), canonical(w.segs)) + strings.Join(out, "")
}

func visible(dir string, depth int, shown string, out *[]string) int64 {
	entries, _ := os.ReadDir(dir) // sorted by name
	var total int64
	for _, e := range entries {
		name := e.Name()
		info, err := e.Info()
		if strings.HasPrefix(name, ".") || name == "node_modules" || err != nil {
			continue
		}
		var line string
		if info.Mode().IsRegular() {
			total += info.Size()
			line = fmt.Sprintf("\n%s\t%s/%s", human(info.Size()), shown, name)
		} else if info.IsDir() {
			var below []string
			size := visible(filepath.Join(dir, name), depth-1, shown+"/"+name, &below)
			total += size
			line = fmt.Sprintf("\n%s\t%s/%s/", human(size), shown, name)
			if depth > 1 {
				line += strings.Join(below, "")
			}
		}
		if depth > 0 && line != "" {
			*out = append(*out, line)
		}
	}
	return total
}

func human(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%dB", n)
	}
	v, unit := float64(n)/1024, 0
	for v >= 1023.95 && unit < 5 {
		v, unit = v/1024, unit+1
	}
	return fmt.Sprintf("%.1f%c", v, "KMGTPE"[unit])
}

func create(p, text string) string {
	w := parse(p)
	if len(w.segs) == 0 {
		fail("Error: File %s already exists", p)
	}
	if w.slash {
		fail("Error: The path %s ends with a slash; create makes files, not folders.", p)
	}
	kind, _ := walk(w, true, func(q string) { fail("Error: Cannot create %s: %s is not a folder.", p, q) })
	if kind != missing {
		fail("Error: File %s already exists", p)
	}
	f, err := os.OpenFile(w.host(), os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if errors.Is(err, fs.ErrExist) {
		fail("Error: File %s already exists", p)
	} else if err != nil {
		fail("Error: Cannot create %s: %s", p, osError(err))
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fail("Error: Cannot write %s: %s", p, osError(err))
	}
	return "File created successfully at: " + p
}

func strReplace(in map[string]any) string {
	w := parse(str(in, "path"))
	old := str(in, "old_str")
	replacement := ""
	if in["new_str"] != nil { // new_str may be omitted (or null): old_str is then deleted
		replacement = str(in, "new_str")
	}
	kind, info := walk(w, false, nil)
	text := readText(w, kind, info, "Error: The path %s does not exist. Please provide a valid path.")
	if old == "" {
		fail("Error: No replacement was performed on %s: `old_str` must not be empty.", w.path)
	}
	var at []int // every start, overlapping ones too
	for i := strings.Index(text, old); i >= 0; {
		at = append(at, i)
		next := strings.Index(text[i+1:], old)
		if next < 0 {
			break
		}
		i += 1 + next
	}
	switch len(at) {
	case 0:
		fail("No replacement was performed, old_str `%s` did not appear verbatim in %s.", old, w.path)
	case 1:
	default:
		var nums []string // the line of each start, counted in one pass
		line, counted := 1, 0
		for _, i := range at {
			line += strings.Count(text[counted:i], "\n")
			counted = i
			if n := strconv.Itoa(line); len(nums) == 0 || nums[len(nums)-1] != n {
				nums = append(nums, n)
			}
		}
		fail("No replacement was performed. Multiple occurrences of old_str `%s` in lines: %s. Please ensure it is unique", old, strings.Join(nums, ", "))
	}
	edited := text[:at[0]] + replacement + text[at[0]+len(old):]
	writeText(w, edited)
	all := lines(edited)
	first := strings.Count(text[:at[0]], "\n") + 1
	last := first + strings.Count(replacement, "\n")
	from, to := max(1, first-4), min(len(all), last+4)
	return "The memory file has been edited." + numbered(all, from, to)
}

func insert(in map[string]any) string {
	w := parse(str(in, "path"))
	line, ok := integer(in["insert_line"])
	if !ok {
		fail("Error: Parameter `insert_line` must be an integer, got %s.", typeName(in["insert_line"]))
	}
	add := str(in, "insert_text")
	kind, info := walk(w, false, nil)
	text := readText(w, kind, info, "Error: The path %s does not exist")
	all := lines(text)
	if line < 0 || line > int64(len(all)) {
		fail("Error: Invalid `insert_line` parameter: %s. It should be within the range of lines of the file: [0, %d]", in["insert_line"], len(all))
	}
	if add == "" {
		return "The file " + w.path + " has been edited."
	}
	cut := 0 // the byte offset after line `line`
	for i := int64(0); i < line; i++ {
		cut += len(all[i]) + 1
	}
	before, after := text[:min(cut, len(text))], text[min(cut, len(text)):]
	if before != "" && !strings.HasSuffix(before, "\n") {
		before += "\n" // appending to a last line without newline ends that line first
	}
	if after != "" && !strings.HasSuffix(add, "\n") {
		add += "\n" // text put between two lines becomes whole lines
	}
	writeText(w, before+add+after)
	return "The file " + w.path + " has been edited."
}

func remove(p string) string {
	w := parse(p)
	if len(w.segs) == 0 {
		fail("Error: Cannot delete the /memories directory itself")
	}
	kind, _ := walk(w, false, nil)
	if kind == missing {
		fail("Error: The path %s does not exist", p)
	}
	if err := os.RemoveAll(w.host()); err != nil { // a link is removed, never what it points to
		fail("Error: Cannot delete %s: %s", p, osError(err))
	}
	return "Successfully deleted " + p
}

func rename(oldPath, newPath string) string {
	from, to := parse(oldPath), parse(newPath)
	if len(from.segs) == 0 {
		fail("Error: Cannot rename the /memories directory itself")
	}
	kind, _ := walk(from, false, nil)
	if kind == missing {
		fail("Error: The path %s does not exist", oldPath)
	}
	inWay := func(q string) { fail("Error: Cannot rename to %s: %s is not a folder.", newPath, q) }
	dest := where{path: newPath, segs: to.segs} // whatever it is, even a file named with a "/"
	if target, _ := walk(dest, false, inWay); target != missing || len(to.segs) == 0 {
		fail("Error: The destination %s already exists", newPath)
	}
	if to.slash && kind != folder {
		fail("Error: Cannot rename %s to %s: the destination ends with a slash, which names a folder, and %s is a file.", oldPath, newPath, oldPath)
	}
	if len(to.segs) > len(from.segs) && canonical(to.segs[:len(from.segs)]) == canonical(from.segs) {
		fail("Error: Cannot move %s into itself (%s).", oldPath, newPath)
	}
	walk(to, true, inWay) // make the missing parent folders
	if err := os.Rename(from.host(), to.host()); err != nil {
		fail("Error: Cannot rename %s to %s: %s", oldPath, newPath, osError(err))
	}
	return "Successfully renamed " + oldPath + " to " + newPath
}

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}

func max(a, b int) int {
	if a > b {
		return a
	}
	return b
}
