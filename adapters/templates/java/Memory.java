// The handler: Claude's memory tool (memory_20250818) over a folder. Replace it with your backend.
//
// handle(input) takes the tool_use input (any JSON value, as Json.java reads it) and returns the
// text Claude reads and whether it is an error. Paths are /memories or below it, with no `.`/`..`
// segment, backslash, control character or percent-encoded traversal; a symbolic link is never
// followed (delete and rename act on the link itself); special files and files with other hard
// links are never opened; create and rename never replace anything; /memories itself is neither
// deleted nor renamed.
import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.*;
import java.util.function.Consumer;
import java.util.regex.Pattern;

public final class Memory {
    public record Result(String text, boolean isError) {}

    /** An answer with is_error true. */
    static final class Failure extends RuntimeException {
        private static final long serialVersionUID = 1;

        Failure(String text) {
            super(text, null, false, false);
        }
    }

    private static final Map<String, List<String>> REQUIRED = Map.of(
        "view", List.of("path"), "create", List.of("path", "file_text"), "str_replace", List.of("path", "old_str"),
        "insert", List.of("path", "insert_line", "insert_text"), "delete", List.of("path"),
        "rename", List.of("old_path", "new_path"));
    private static final Pattern ENCODED = Pattern.compile("(?i)%(25)?(2e|2f|5c|00)"); // also double-encoded: %252e
    private static final String[][] LOOKALIKES = {{"\u2024", "."}, {"\u2025", ".."}, {"\ufe52", "."}, {"\uff0e", "."},
        {"\u2044", "/"}, {"\u2215", "/"}, {"\uff0f", "/"}, {"\u29f5", "\\"}, {"\ufe68", "\\"}, {"\uff3c", "\\"}};
    private static final Pattern TRAVERSAL = Pattern.compile("\\\\|/\\.\\.?(/|$)");
    private static final Pattern CONTROL = Pattern.compile("[\\x00-\\x1f\\x7f-\\x9f]");
    private static final String LINK = "Error: The path %s goes through the symbolic link %s; the memory tool does not follow symbolic links.";
    private static final BigInteger MIN = BigInteger.valueOf(Long.MIN_VALUE), MAX = BigInteger.TWO.pow(64).subtract(BigInteger.ONE);

    private final Path root; // the host folder that /memories maps to

    public Memory(String folder) throws IOException {
        root = Files.createDirectories(Path.of(folder)).toRealPath();
    }

    /** Forgets every memory; the folder itself stays. */
    public boolean reset() {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(root)) {
            for (Path entry : entries) remove(entry);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    public Result handle(Object input) {
        try {
            return new Result(run(input), false);
        } catch (Failure e) {
            return new Result(e.getMessage(), true);
        } catch (IOException e) { // the reason alone: never the host path
            return new Result("Error: " + (e instanceof FileSystemException f && f.getReason() != null
                ? f.getReason() : e.getClass().getSimpleName()), true);
        } catch (RuntimeException e) { // never die on an input
            return new Result("Error: internal error (" + e.getClass().getSimpleName() + ")", true);
        }
    }

    private static Failure fail(String format, Object... args) {
        throw new Failure(String.format(Locale.ROOT, format, args));
    }

    private static boolean isInteger(Object value) {
        return value instanceof BigInteger n && n.compareTo(MIN) >= 0 && n.compareTo(MAX) <= 0;
    }

    private static long clamp(BigInteger n) { // 64-bit integers; the unsigned ones beyond long are out of range anyway
        return n.bitLength() < 64 ? n.longValue() : Long.MAX_VALUE;
    }

    private static String typeName(Object value) {
        if (value == null) return "null";
        if (value instanceof Boolean) return "a boolean";
        if (value instanceof Number) return isInteger(value) ? "an integer" : "a non-integer number";
        if (value instanceof String) return "a string";
        if (value instanceof List) return "an array";
        return "an object";
    }

    private static String str(Map<?, ?> input, String key) {
        if (input.get(key) instanceof String s) return s;
        throw fail("Error: Parameter `%s` must be a string, got %s.", key, typeName(input.get(key)));
    }

    private String run(Object value) throws IOException {
        if (!(value instanceof Map<?, ?> input)) {
            throw fail("Error: The tool input must be a JSON object, got %s.", typeName(value));
        }
        if (!input.containsKey("command")) fail("Error: Missing required parameter `command`.");
        String command = str(input, "command");
        if (!REQUIRED.containsKey(command)) {
            fail("Error: Unknown command `%s`. Valid commands are: view, create, str_replace, insert, delete, rename.", command);
        }
        for (String key : REQUIRED.get(command)) {
            if (!input.containsKey(key)) fail("Error: Missing required parameter `%s` for command `%s`.", key, command);
        }
        return switch (command) {
            case "view" -> view(input);
            case "create" -> create(str(input, "path"), str(input, "file_text"));
            case "str_replace" -> strReplace(input);
            case "insert" -> insert(input);
            case "delete" -> delete(str(input, "path"));
            default -> rename(str(input, "old_path"), str(input, "new_path"));
        };
    }

    // ---- paths ----------------------------------------------------------------------------------

    /** A checked memory path: as Claude sent it, its segments below /memories, a trailing slash. */
    private record Where(String path, List<String> segs, boolean slash) {
        Where prefix(int n) {
            return new Where(canonical(segs.subList(0, n)), segs.subList(0, n), false);
        }
    }

    private static String canonical(List<String> segs) {
        return segs.isEmpty() ? "/memories" : "/memories/" + String.join("/", segs);
    }

    private Path host(List<String> segs) {
        Path p = root;
        for (String s : segs) p = p.resolve(s);
        return p;
    }

    private static String shown(String path) { // control characters written visibly, as `\n` or `\\u{0}`
        return CONTROL.matcher(path).replaceAll(m -> switch (m.group()) {
            case "\n" -> "\\\\n";
            case "\t" -> "\\\\t";
            case "\r" -> "\\\\r";
            default -> String.format(Locale.ROOT, "\\\\u{%x}", (int) m.group().charAt(0));
        });
    }

    private static Where parse(String path) {
        Consumer<String> bad = why -> fail("Error: The path %s is not a valid memory path: %s", shown(path), why);
        String folded = path;
        for (String[] pair : LOOKALIKES) folded = folded.replace(pair[0], pair[1]);
        if (CONTROL.matcher(path).find()) bad.accept("control characters such as NUL are not allowed.");
        else if (path.contains("\\")) bad.accept("backslashes are not allowed.");
        else if (!path.equals("/memories") && !path.startsWith("/memories/")) {
            bad.accept("memory paths must be /memories or start with /memories/.");
        } else if (path.getBytes(StandardCharsets.UTF_8).length > 4096) bad.accept("it is longer than 4096 bytes.");
        else if (ENCODED.matcher(path).find()) bad.accept("percent-encoded dots, slashes, backslashes and NUL are not allowed.");
        else if (TRAVERSAL.matcher(folded).find() && !TRAVERSAL.matcher(path).find()) {
            bad.accept("characters that look like dots, slashes or backslashes are not allowed.");
        }
        List<String> segs = new ArrayList<>();
        String[] parts = path.split("/", -1);
        for (String s : Arrays.asList(parts).subList(2, parts.length)) {
            if (s.equals(".") || s.equals("..")) bad.accept("`.` and `..` segments are not allowed.");
            else if (s.getBytes(StandardCharsets.UTF_8).length > 255) bad.accept("a path segment is longer than 255 bytes.");
            else if (!s.isEmpty()) segs.add(s);
        }
        return new Where(path, segs, path.endsWith("/") && !segs.isEmpty());
    }

    enum Kind { MISSING, FILE, FOLDER, LINK, OTHER }

    private record Found(Kind kind, BasicFileAttributes attributes) {}

    private static BasicFileAttributes lstat(Path p) throws IOException {
        return Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * What a path names, never following a symbolic link. Missing folders on the way are made when
     * mkdir is set; a file in the way goes to inWay.
     */
    private Found walk(Where where, boolean mkdir, Consumer<String> inWay) throws IOException {
        if (where.segs().isEmpty()) return new Found(Kind.FOLDER, lstat(root));
        for (int i = 1; i <= where.segs().size(); i++) {
            Path at = host(where.segs().subList(0, i));
            boolean last = i == where.segs().size();
            BasicFileAttributes st;
            try {
                st = lstat(at);
            } catch (NoSuchFileException e) {
                if (last || !mkdir) return new Found(Kind.MISSING, null);
                Files.createDirectory(at);
                continue;
            }
            if (st.isSymbolicLink() && (!last || where.slash())) fail(LINK, where.path(), where.prefix(i).path());
            if (last) {
                Kind kind = st.isSymbolicLink() ? Kind.LINK : st.isDirectory() ? Kind.FOLDER
                    : !st.isRegularFile() ? Kind.OTHER : where.slash() ? Kind.MISSING : Kind.FILE;
                return new Found(kind, st);
            }
            if (!st.isDirectory()) {
                if (inWay != null) inWay.accept(where.prefix(i).path());
                return new Found(Kind.MISSING, null);
            }
        }
        throw new IllegalStateException("unreachable");
    }

    // ---- files ----------------------------------------------------------------------------------

    /** Reads a regular file that is UTF-8 and has no other hard link (one could lie outside). */
    private String readText(Where where, Found found, String missingText) throws IOException {
        switch (found.kind()) {
            case MISSING, FOLDER -> fail(missingText, where.path());
            case LINK -> fail(LINK, where.path(), canonical(where.segs()));
            case OTHER -> fail("Error: The path %s is not a regular file or folder.", where.path());
            case FILE -> { }
        }
        Path p = host(where.segs());
        if ((Integer) Files.getAttribute(p, "unix:nlink", LinkOption.NOFOLLOW_LINKS) > 1) {
            fail("Error: The file %s has other hard links, which may lie outside /memories; the memory tool does not read or edit it.", where.path());
        }
        byte[] bytes;
        try (var in = Files.newInputStream(p, LinkOption.NOFOLLOW_LINKS)) {
            bytes = in.readAllBytes();
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw fail("Error: The file %s is not valid UTF-8 text; the memory tool only reads and edits UTF-8 text files.", where.path());
        }
    }

    private void writeText(Where where, String text) throws IOException {
        Files.writeString(host(where.segs()), text, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING,
            LinkOption.NOFOLLOW_LINKS);
    }

    /** Lines split on "\n"; a final newline ends the last line instead of starting an empty one. */
    private static List<String> lines(String text) {
        if (text.isEmpty()) return List.of();
        String body = text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
        return Arrays.asList(body.split("\n", -1));
    }

    private static String numbered(List<String> all, long from, long to) {
        StringBuilder b = new StringBuilder();
        for (long n = from; n <= to; n++) b.append(String.format(Locale.ROOT, "\n%6d\t%s", n, all.get((int) n - 1)));
        return b.toString();
    }

    private void remove(Path p) throws IOException { // recursive, never through a link
        if (lstat(p).isDirectory()) {
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(p)) {
                for (Path entry : entries) remove(entry);
            }
        }
        Files.delete(p);
    }

    private static int count(String text, int end) { // newlines before end
        int n = 0;
        for (int k = text.indexOf('\n'); k >= 0 && k < end; k = text.indexOf('\n', k + 1)) n++;
        return n;
    }

    // ---- commands -------------------------------------------------------------------------------

    private String view(Map<?, ?> input) throws IOException {
        Where where = parse(str(input, "path"));
        Found found = walk(where, false, null);
        Object range = input.get("view_range");
        if (found.kind() == Kind.FOLDER) {
            if (range != null) fail("Error: The `view_range` parameter is not allowed when `path` points to a directory.");
            return listing(where);
        }
        List<String> all = lines(readText(where, found, "The path %s does not exist. Please provide a valid path."));
        long n = all.size(), from = 1, to = n;
        if (n > 999_999) fail("File %s exceeds maximum line limit of 999,999 lines.", where.path());
        if (range != null) {
            if (!(range instanceof List<?> pair) || pair.size() != 2 || !isInteger(pair.get(0)) || !isInteger(pair.get(1))) {
                throw fail("Error: Invalid `view_range`. It should be a list of two integers.");
            }
            long a = clamp((BigInteger) pair.get(0)), b = clamp((BigInteger) pair.get(1));
            String bad = String.format(Locale.ROOT, "Error: Invalid `view_range`: [%s, %s].", pair.get(0), pair.get(1));
            if (a < 1 || a > n) fail("%s Its first element `%s` should be within the range of lines of the file: [1, %d]", bad, pair.get(0), n);
            if (b != -1) {
                if (b > n) fail("%s Its second element `%s` should be smaller than the number of lines in the file: `%d`", bad, pair.get(1), n);
                if (b < a) fail("%s Its second element `%s` should be larger or equal than its first `%s`", bad, pair.get(1), pair.get(0));
                to = b;
            }
            from = a;
        }
        return "Here's the content of " + where.path() + " with line numbers:" + numbered(all, from, to);
    }

    /**
     * Two levels deep: hidden items, node_modules, links and special files are left out; a folder's
     * size is the total of the visible files below it; folders end with "/".
     */
    private String listing(Where where) throws IOException {
        StringBuilder out = new StringBuilder();
        long size = visible(host(where.segs()), 2, canonical(where.segs()), out);
        return "Here're the files and directories up to 2 levels deep in " + where.path()
            + ", excluding hidden items and node_modules:\n" + human(size) + "\t" + canonical(where.segs()) + out;
    }

    private long visible(Path dir, int depth, String shown, StringBuilder out) throws IOException {
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path entry : entries) names.add(entry.getFileName().toString());
        }
        names.sort((x, y) -> Arrays.compareUnsigned(x.getBytes(StandardCharsets.UTF_8), y.getBytes(StandardCharsets.UTF_8)));
        long total = 0;
        for (String name : names) {
            if (name.startsWith(".") || name.equals("node_modules")) continue;
            BasicFileAttributes st = lstat(dir.resolve(name));
            if (st.isRegularFile()) {
                total += st.size();
                if (depth > 0) out.append('\n').append(human(st.size())).append('\t').append(shown).append('/').append(name);
            } else if (st.isDirectory()) {
                StringBuilder below = new StringBuilder();
                long size = visible(dir.resolve(name), depth - 1, shown + "/" + name, below);
                total += size;
                if (depth > 0) out.append('\n').append(human(size)).append('\t').append(shown).append('/').append(name).append('/')
                    .append(depth > 1 ? below : "");
            }
        }
        return total;
    }

    private static String human(long n) {
        if (n < 1024) return n + "B";
        double value = n / 1024.0;
        int unit = 0;
        for (; value >= 1023.95 && unit < 5; unit++) value /= 1024;
        return String.format(Locale.ROOT, "%.1f%c", value, "KMGTPE".charAt(unit));
    }

    private String create(String path, String text) throws IOException {
        Where where = parse(path);
        if (where.segs().isEmpty()) fail("Error: File %s already exists", path);
        if (where.slash()) fail("Error: The path %s ends with a slash; create makes files, not folders.", path);
        Found found = walk(where, true, q -> fail("Error: Cannot create %s: %s is not a folder.", path, q));
        if (found.kind() != Kind.MISSING) fail("Error: File %s already exists", path);
        try {
            Files.writeString(host(where.segs()), text, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS);
        } catch (FileAlreadyExistsException e) {
            fail("Error: File %s already exists", path);
        }
        return "File created successfully at: " + path;
    }

    private String strReplace(Map<?, ?> input) throws IOException {
        Where where = parse(str(input, "path"));
        String old = str(input, "old_str");
        String replacement = input.get("new_str") == null ? "" : str(input, "new_str"); // omitted (or null): deletes old_str
        String text = readText(where, walk(where, false, null), "Error: The path %s does not exist. Please provide a valid path.");
        if (old.isEmpty()) fail("Error: No replacement was performed on %s: `old_str` must not be empty.", where.path());
        List<Integer> at = new ArrayList<>(); // every start, overlapping ones too
        for (int i = text.indexOf(old); i >= 0; i = text.indexOf(old, i + 1)) at.add(i);
        if (at.isEmpty()) fail("No replacement was performed, old_str `%s` did not appear verbatim in %s.", old, where.path());
        if (at.size() > 1) {
            Set<Integer> nums = new LinkedHashSet<>(); // the line of each start, counted in one pass
            int line = 1, k = 0;
            for (int i : at) {
                for (; k < i; k++) if (text.charAt(k) == '\n') line++;
                nums.add(line);
            }
            fail("No replacement was performed. Multiple occurrences of old_str `%s` in lines: %s. Please ensure it is unique",
                old, String.join(", ", nums.stream().map(String::valueOf).toList()));
        }
        int start = at.get(0);
        String edited = text.substring(0, start) + replacement + text.substring(start + old.length());
        writeText(where, edited);
        List<String> all = lines(edited);
        int first = count(text, start) + 1;
        return "The memory file has been edited."
            + numbered(all, Math.max(1, first - 4), Math.min(all.size(), first + count(replacement, replacement.length()) + 4));
    }

    private String insert(Map<?, ?> input) throws IOException {
        Where where = parse(str(input, "path"));
        Object line = input.get("insert_line");
        if (!isInteger(line)) fail("Error: Parameter `insert_line` must be an integer, got %s.", typeName(line));
        String add = str(input, "insert_text");
        String text = readText(where, walk(where, false, null), "Error: The path %s does not exist");
        List<String> all = lines(text);
        long n = clamp((BigInteger) line);
        if (n < 0 || n > all.size()) {
            fail("Error: Invalid `insert_line` parameter: %s. It should be within the range of lines of the file: [0, %d]", line, all.size());
        }
        if (!add.isEmpty()) {
            int cut = 0; // the offset after line n
            for (String l : all.subList(0, (int) n)) cut += l.length() + 1;
            String before = text.substring(0, Math.min(cut, text.length())), after = text.substring(Math.min(cut, text.length()));
            if (!before.isEmpty() && !before.endsWith("\n")) before += "\n"; // end a last line without newline first
            if (!after.isEmpty() && !add.endsWith("\n")) add += "\n"; // text put between two lines becomes whole lines
            writeText(where, before + add + after);
        }
        return "The file " + where.path() + " has been edited.";
    }

    private String delete(String path) throws IOException {
        Where where = parse(path);
        if (where.segs().isEmpty()) fail("Error: Cannot delete the /memories directory itself");
        if (walk(where, false, null).kind() == Kind.MISSING) fail("Error: The path %s does not exist", path);
        remove(host(where.segs())); // a link is removed, never what it points to
        return "Successfully deleted " + path;
    }

    private String rename(String oldPath, String newPath) throws IOException {
        Where from = parse(oldPath), to = parse(newPath);
        if (from.segs().isEmpty()) fail("Error: Cannot rename the /memories directory itself");
        Kind kind = walk(from, false, null).kind();
        if (kind == Kind.MISSING) fail("Error: The path %s does not exist", oldPath);
        Consumer<String> inWay = q -> fail("Error: Cannot rename to %s: %s is not a folder.", newPath, q);
        Found target = walk(new Where(newPath, to.segs(), false), false, inWay); // whatever is there, even a file
        if (target.kind() != Kind.MISSING || to.segs().isEmpty()) fail("Error: The destination %s already exists", newPath);
        if (to.slash() && kind != Kind.FOLDER) {
            fail("Error: Cannot rename %s to %s: the destination ends with a slash, which names a folder, and %s is a file.",
                oldPath, newPath, oldPath);
        }
        if (to.segs().size() > from.segs().size() && to.segs().subList(0, from.segs().size()).equals(from.segs())) {
            fail("Error: Cannot move %s into itself (%s).", oldPath, newPath);
        }
        walk(to, true, inWay); // make the missing parent folders
        Files.move(host(from.segs()), host(to.segs())); // never replaces; a link is moved itself
        return "Successfully renamed " + oldPath + " to " + newPath;
    }
}
