// The handler: Claude's memory tool (memory_20250818) over a folder. Replace it with your backend.
//
// Handle(input) takes the tool_use input (any JSON value, as Json.cs reads it) and returns
// the text Claude reads and whether it is an error. Paths are /memories or below it, with no
// `.`/`..` segment, backslash, control character or percent-encoded traversal; a symbolic link is
// never followed (delete and rename act on the link itself); special files and files with other
// hard links are never opened; create and rename never replace anything; /memories itself is
// neither deleted nor renamed. Files are reached through Mono.Posix (lstat, O_NOFOLLOW), which
// mono ships: System.IO can tell neither a FIFO nor a hard link.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Numerics;
using System.Text;
using System.Text.RegularExpressions;
using Mono.Unix;
using Mono.Unix.Native;

sealed class Memory
{
    /// <summary>An answer with is_error true.</summary>
    sealed class Failure : Exception
    {
        public Failure(string text) : base(text) { }
    }

    static readonly Dictionary<string, string[]> Required = new Dictionary<string, string[]>
    {
        ["view"] = new[] { "path" }, ["create"] = new[] { "path", "file_text" }, ["str_replace"] = new[] { "path", "old_str" },
        ["insert"] = new[] { "path", "insert_line", "insert_text" }, ["delete"] = new[] { "path" },
        ["rename"] = new[] { "old_path", "new_path" },
    };
    static readonly Regex Encoded = new Regex("%(25)?(2e|2f|5c|00)", RegexOptions.IgnoreCase); // also double-encoded: %252e
    static readonly string[,] Lookalikes = { { "\u2024", "." }, { "\u2025", ".." }, { "\ufe52", "." }, { "\uff0e", "." },
        { "\u2044", "/" }, { "\u2215", "/" }, { "\uff0f", "/" }, { "\u29f5", "\\" }, { "\ufe68", "\\" }, { "\uff3c", "\\" } };
    static readonly Regex Traversal = new Regex(@"\\|/\.\.?(/|$)");
    static readonly Regex Control = new Regex(@"[\x00-\x1f\x7f-\x9f]");
    const string Link = "Error: The path {0} goes through the symbolic link {1}; the memory tool does not follow symbolic links.";
    static readonly BigInteger Min = long.MinValue, Max = ulong.MaxValue;
    static readonly UTF8Encoding StrictUtf8 = new UTF8Encoding(false, true);

    readonly string root; // the host folder that /memories maps to

    public Memory(string folder)
    {
        Directory.CreateDirectory(folder);
        root = new UnixDirectoryInfo(Path.GetFullPath(folder)).FullName.TrimEnd('/');
    }

    /// <summary>Forgets every memory; the folder itself stays.</summary>
    public bool Reset()
    {
        try
        {
            foreach (var entry in new UnixDirectoryInfo(root).GetFileSystemEntries()) Remove(entry.FullName);
            return true;
        }
        catch (Exception)
        {
            return false;
        }
    }

    public (string text, bool isError) Handle(object input)
    {
        try
        {
            return (Run(input), false);
        }
        catch (Failure e)
        {
            return (e.Message, true);
        }
        catch (Exception e) when (e is IOException || e is UnauthorizedAccessException) // Mono.Unix: the reason alone
        {
            return ("Error: " + e.Message, true);
        }
        catch (Exception e) // never die on an input
        {
            return ("Error: internal error (" + e.GetType().Name + ")", true);
        }
    }

    static Failure Fail(string format, params object[] args) => throw new Failure(string.Format(format, args));

    static bool IsInteger(object value) => value is BigInteger n && n >= Min && n <= Max;

    static long Clamp(object n) => (BigInteger)n > long.MaxValue ? long.MaxValue : (long)(BigInteger)n;

    static string TypeName(object value)
    {
        if (value == null) return "null";
        if (value is bool) return "a boolean";
        if (value is BigInteger) return IsInteger(value) ? "an integer" : "a non-integer number";
        if (value is double) return "a non-integer number";
        if (value is string) return "a string";
        return value is List<object> ? "an array" : "an object";
    }

    static string Str(Dictionary<string, object> input, string key)
    {
        input.TryGetValue(key, out object value);
        return value as string ?? throw Fail("Error: Parameter `{0}` must be a string, got {1}.", key, TypeName(value));
    }

    string Run(object value)
    {
        if (!(value is Dictionary<string, object> input))
        {
            throw Fail("Error: The tool input must be a JSON object, got {0}.", TypeName(value));
        }
        if (!input.ContainsKey("command")) Fail("Error: Missing required parameter `command`.");
        string command = Str(input, "command");
        if (!Required.ContainsKey(command))
        {
            Fail("Error: Unknown command `{0}`. Valid commands are: view, create, str_replace, insert, delete, rename.", command);
        }
        foreach (string key in Required[command])
        {
            if (!input.ContainsKey(key)) Fail("Error: Missing required parameter `{0}` for command `{1}`.", key, command);
        }
        switch (command)
        {
            case "view": return View(input);
            case "create": return Create(Str(input, "path"), Str(input, "file_text"));
            case "str_replace": return StrReplace(input);
            case "insert": return Insert(input);
            case "delete": return Delete(Str(input, "path"));
            default: return Rename(Str(input, "old_path"), Str(input, "new_path"));
        }
    }

    // ---- paths ----------------------------------------------------------------------------------

    /// <summary>A checked memory path: as Claude sent it, its segments below /memories, a trailing slash.</summary>
    sealed class Where
    {
        public string Path;
        public List<string> Segs;
        public bool Slash;
    }

    static string Canonical(IEnumerable<string> segs) => string.Join("/", new[] { "/memories" }.Concat(segs));

    string Host(IEnumerable<string> segs) => string.Join("/", new[] { root }.Concat(segs));

    static string Shown(string path) => Control.Replace(path, m => // control characters written visibly: `\n`, `\u{0}`
        m.Value == "\n" ? "\\n" : m.Value == "\t" ? "\\t" : m.Value == "\r" ? "\\r" : "\\u{" + ((int)m.Value[0]).ToString("x") + "}");

    static Where Parse(string path)
    {
        Action<string> bad = why => Fail("Error: The path {0} is not a valid memory path: {1}", Shown(path), why);
        string folded = path;
        for (int k = 0; k < Lookalikes.GetLength(0); k++) folded = folded.Replace(Lookalikes[k, 0], Lookalikes[k, 1]);
        if (Control.IsMatch(path)) bad("control characters such as NUL are not allowed.");
        else if (path.Contains("\\")) bad("backslashes are not allowed.");
        else if (path != "/memories" && !path.StartsWith("/memories/", StringComparison.Ordinal))
        {
            bad("memory paths must be /memories or start with /memories/.");
        }
        else if (Encoding.UTF8.GetByteCount(path) > 4096) bad("it is longer than 4096 bytes.");
        else if (Encoded.IsMatch(path)) bad("percent-encoded dots, slashes, backslashes and NUL are not allowed.");
        else if (Traversal.IsMatch(folded) && !Traversal.IsMatch(path))
        {
            bad("characters that look like dots, slashes or backslashes are not allowed.");
        }
        var segs = new List<string>();
        foreach (string s in path.Split('/').Skip(2))
        {
            if (s == "." || s == "..") bad("`.` and `..` segments are not allowed.");
            else if (Encoding.UTF8.GetByteCount(s) > 255) bad("a path segment is longer than 255 bytes.");
            else if (s.Length > 0) segs.Add(s);
        }
        return new Where { Path = path, Segs = segs, Slash = path.EndsWith("/", StringComparison.Ordinal) && segs.Count > 0 };
    }

    enum Kind { Missing, File, Folder, Link, Other }

    static Kind KindOf(UnixFileSystemInfo st)
    {
        switch (st.FileType)
        {
            case FileTypes.SymbolicLink: return Kind.Link;
            case FileTypes.Directory: return Kind.Folder;
            case FileTypes.RegularFile: return Kind.File;
            default: return Kind.Other;
        }
    }

    /// <summary>
    /// What a path names and its lstat, never following a symbolic link. Missing folders on the way
    /// are made when mkdir is set; a file in the way goes to inWay.
    /// </summary>
    (Kind kind, UnixFileSystemInfo st) Walk(Where where, bool mkdir = false, Action<string> inWay = null)
    {
        if (where.Segs.Count == 0) return (Kind.Folder, UnixFileSystemInfo.GetFileSystemEntry(root));
        for (int i = 1; i <= where.Segs.Count; i++)
        {
            var st = UnixFileSystemInfo.GetFileSystemEntry(Host(where.Segs.Take(i))); // lstat
            bool last = i == where.Segs.Count;
            if (!st.Exists)
            {
                if (last || !mkdir) return (Kind.Missing, null);
                UnixMarshal.ThrowExceptionForLastErrorIf(Syscall.mkdir(st.FullName, FilePermissions.S_IRWXU));
                continue;
            }
            Kind kind = KindOf(st);
            if (kind == Kind.Link && (!last || where.Slash)) Fail(Link, where.Path, Canonical(where.Segs.Take(i)));
            if (last) return (kind == Kind.File && where.Slash ? Kind.Missing : kind, st);
            if (kind != Kind.Folder)
            {
                inWay?.Invoke(Canonical(where.Segs.Take(i)));
                return (Kind.Missing, null);
            }
        }
        throw new InvalidOperationException("unreachable");
    }

    // ---- files ----------------------------------------------------------------------------------

    /// <summary>Reads a regular file that is UTF-8 and has no other hard link (one could lie outside).</summary>
    string ReadText(Where where, (Kind kind, UnixFileSystemInfo st) found, string missingText)
    {
        switch (found.kind)
        {
            case Kind.Missing: case Kind.Folder: Fail(missingText, where.Path); break;
            case Kind.Link: Fail(Link, where.Path, Canonical(where.Segs)); break;
            case Kind.Other: Fail("Error: The path {0} is not a regular file or folder.", where.Path); break;
        }
        if (found.st.LinkCount > 1)
        {
            Fail("Error: The file {0} has other hard links, which may lie outside /memories; the memory tool does not read or edit it.", where.Path);
        }
        var bytes = new MemoryStream();
        using (var file = new UnixFileInfo(found.st.FullName).Open(OpenFlags.O_RDONLY | OpenFlags.O_NOFOLLOW | OpenFlags.O_NONBLOCK))
        {
            file.CopyTo(bytes);
        }
        try
        {
            return StrictUtf8.GetString(bytes.ToArray());
        }
        catch (ArgumentException)
        {
            throw Fail("Error: The file {0} is not valid UTF-8 text; the memory tool only reads and edits UTF-8 text files.", where.Path);
        }
    }

    void WriteText(string hostPath, string text, OpenFlags flags)
    {
        byte[] bytes = StrictUtf8.GetBytes(text);
        using (var file = new UnixFileInfo(hostPath).Open(OpenFlags.O_WRONLY | OpenFlags.O_NOFOLLOW | flags,
            FilePermissions.S_IRUSR | FilePermissions.S_IWUSR))
        {
            file.Write(bytes, 0, bytes.Length);
        }
    }

    /// <summary>Lines split on "\n"; a final newline ends the last line instead of starting an empty one.</summary>
    static string[] Lines(string text) =>
        text.Length == 0 ? new string[0] : (text.EndsWith("\n", StringComparison.Ordinal) ? text.Substring(0, text.Length - 1) : text).Split('\n');

    static string Numbered(string[] all, long from, long to)
    {
        var b = new StringBuilder();
        for (long n = from; n <= to; n++) b.Append('\n').Append(n.ToString().PadLeft(6)).Append('\t').Append(all[n - 1]);
        return b.ToString();
    }

    static void Remove(string hostPath) // recursive, never through a link
    {
        var st = UnixFileSystemInfo.GetFileSystemEntry(hostPath);
        if (st.FileType == FileTypes.Directory)
        {
            foreach (var entry in new UnixDirectoryInfo(hostPath).GetFileSystemEntries()) Remove(entry.FullName);
        }
        st.Delete(); // unlink, or rmdir for a folder
    }

    // ---- commands -------------------------------------------------------------------------------

    string View(Dictionary<string, object> input)
    {
        Where where = Parse(Str(input, "path"));
        var found = Walk(where);
        input.TryGetValue("view_range", out object range);
        if (found.kind == Kind.Folder)
        {
            if (range != null) Fail("Error: The `view_range` parameter is not allowed when `path` points to a directory.");
            return Listing(where);
        }
        string[] all = Lines(ReadText(where, found, "The path {0} does not exist. Please provide a valid path."));
        long n = all.Length, from = 1, to = n;
        if (n > 999999) Fail("File {0} exceeds maximum line limit of 999,999 lines.", where.Path);
        if (range != null)
        {
            if (!(range is List<object> pair) || pair.Count != 2 || !IsInteger(pair[0]) || !IsInteger(pair[1]))
            {
                throw Fail("Error: Invalid `view_range`. It should be a list of two integers.");
            }
            long a = Clamp(pair[0]), b = Clamp(pair[1]);
            string bad = string.Format("Error: Invalid `view_range`: [{0}, {1}].", pair[0], pair[1]);
            if (a < 1 || a > n) Fail("{0} Its first element `{1}` should be within the range of lines of the file: [1, {2}]", bad, pair[0], n);
            if (b != -1)
            {
                if (b > n) Fail("{0} Its second element `{1}` should be smaller than the number of lines in the file: `{2}`", bad, pair[1], n);
                if (b < a) Fail("{0} Its second element `{1}` should be larger or equal than its first `{2}`", bad, pair[1], pair[0]);
                to = b;
            }
            from = a;
        }
        return "Here's the content of " + where.Path + " with line numbers:" + Numbered(all, from, to);
    }

    /// <summary>
    /// Two levels deep: hidden items, node_modules, links and special files are left out; a folder's
    /// size is the total of the visible files below it; folders end with "/".
    /// </summary>
    string Listing(Where where)
    {
        var output = new StringBuilder();
        long size = Visible(Host(where.Segs), 2, Canonical(where.Segs), output);
        return "Here're the files and directories up to 2 levels deep in " + where.Path
            + ", excluding hidden items and node_modules:\n" + Human(size) + "\t" + Canonical(where.Segs) + output;
    }

    static long Visible(string dir, int depth, string shown, StringBuilder output)
    {
        var entries = new UnixDirectoryInfo(dir).GetFileSystemEntries() // lstat each, sorted by the bytes of the names
            .OrderBy(e => e.Name, Comparer<string>.Create((x, y) => CompareBytes(Encoding.UTF8.GetBytes(x), Encoding.UTF8.GetBytes(y))));
        long total = 0;
        foreach (var entry in entries)
        {
            string name = entry.Name;
            if (name.StartsWith(".", StringComparison.Ordinal) || name == "node_modules") continue;
            if (entry.FileType == FileTypes.RegularFile)
            {
                total += entry.Length;
                if (depth > 0) output.Append('\n').Append(Human(entry.Length)).Append('\t').Append(shown).Append('/').Append(name);
            }
            else if (entry.FileType == FileTypes.Directory)
            {
                var below = new StringBuilder();
                long size = Visible(entry.FullName, depth - 1, shown + "/" + name, below);
                total += size;
                if (depth > 0)
                {
                    output.Append('\n').Append(Human(size)).Append('\t').Append(shown).Append('/').Append(name).Append('/')
                        .Append(depth > 1 ? below.ToString() : "");
                }
            }
        }
        return total;
    }

    static int CompareBytes(byte[] x, byte[] y)
    {
        for (int k = 0; k < Math.Min(x.Length, y.Length); k++)
        {
            if (x[k] != y[k]) return x[k].CompareTo(y[k]);
        }
        return x.Length.CompareTo(y.Length);
    }

    static string Human(long n)
    {
        if (n < 1024) return n + "B";
        double value = n / 1024.0;
        int unit = 0;
        for (; value >= 1023.95 && unit < 5; unit++) value /= 1024;
        return value.ToString("0.0", System.Globalization.CultureInfo.InvariantCulture) + "KMGTPE"[unit];
    }

    string Create(string path, string text)
    {
        Where where = Parse(path);
        if (where.Segs.Count == 0) Fail("Error: File {0} already exists", path);
        if (where.Slash) Fail("Error: The path {0} ends with a slash; create makes files, not folders.", path);
        var found = Walk(where, true, q => Fail("Error: Cannot create {0}: {1} is not a folder.", path, q));
        if (found.kind != Kind.Missing) Fail("Error: File {0} already exists", path);
        try
        {
            WriteText(Host(where.Segs), text, OpenFlags.O_CREAT | OpenFlags.O_EXCL);
        }
        catch (UnixIOException e) when (e.ErrorCode == Errno.EEXIST)
        {
            Fail("Error: File {0} already exists", path);
        }
        return "File created successfully at: " + path;
    }

    string StrReplace(Dictionary<string, object> input)
    {
        Where where = Parse(Str(input, "path"));
        string old = Str(input, "old_str");
        input.TryGetValue("new_str", out object newStr);
        string replacement = newStr == null ? "" : Str(input, "new_str"); // omitted (or null): deletes old_str
        string text = ReadText(where, Walk(where), "Error: The path {0} does not exist. Please provide a valid path.");
        if (old.Length == 0) Fail("Error: No replacement was performed on {0}: `old_str` must not be empty.", where.Path);
        var at = new List<int>(); // every start, overlapping ones too
        for (int i = text.IndexOf(old, StringComparison.Ordinal); i >= 0; i = text.IndexOf(old, i + 1, StringComparison.Ordinal)) at.Add(i);
        if (at.Count == 0) Fail("No replacement was performed, old_str `{0}` did not appear verbatim in {1}.", old, where.Path);
        if (at.Count > 1)
        {
            var nums = new List<int>(); // the line of each start, counted in one pass
            int line = 1, counted = 0;
            foreach (int i in at)
            {
                for (; counted < i; counted++) if (text[counted] == '\n') line++;
                if (nums.Count == 0 || nums[nums.Count - 1] != line) nums.Add(line);
            }
            Fail("No replacement was performed. Multiple occurrences of old_str `{0}` in lines: {1}. Please ensure it is unique",
                old, string.Join(", ", nums));
        }
        string edited = text.Substring(0, at[0]) + replacement + text.Substring(at[0] + old.Length);
        WriteText(Host(where.Segs), edited, OpenFlags.O_TRUNC);
        string[] all = Lines(edited);
        int first = text.Take(at[0]).Count(c => c == '\n') + 1;
        return "The memory file has been edited."
            + Numbered(all, Math.Max(1, first - 4), Math.Min(all.Length, first + replacement.Count(c => c == '\n') + 4));
    }

    string Insert(Dictionary<string, object> input)
    {
        Where where = Parse(Str(input, "path"));
        object line = input["insert_line"];
        if (!IsInteger(line)) Fail("Error: Parameter `insert_line` must be an integer, got {0}.", TypeName(line));
        string add = Str(input, "insert_text");
        string text = ReadText(where, Walk(where), "Error: The path {0} does not exist");
        string[] all = Lines(text);
        long n = Clamp(line);
        if (n < 0 || n > all.Length)
        {
            Fail("Error: Invalid `insert_line` parameter: {0}. It should be within the range of lines of the file: [0, {1}]", line, all.Length);
        }
        if (add.Length > 0)
        {
            int cut = Math.Min(all.Take((int)n).Sum(l => l.Length + 1), text.Length); // the offset after line n
            string before = text.Substring(0, cut), after = text.Substring(cut);
            if (before.Length > 0 && !before.EndsWith("\n", StringComparison.Ordinal)) before += "\n"; // end a last line first
            if (after.Length > 0 && !add.EndsWith("\n", StringComparison.Ordinal)) add += "\n"; // between lines: whole lines
            WriteText(Host(where.Segs), before + add + after, OpenFlags.O_TRUNC);
        }
        return "The file " + where.Path + " has been edited.";
    }

    string Delete(string path)
    {
        Where where = Parse(path);
        if (where.Segs.Count == 0) Fail("Error: Cannot delete the /memories directory itself");
        if (Walk(where).kind == Kind.Missing) Fail("Error: The path {0} does not exist", path);
        Remove(Host(where.Segs)); // a link is removed, never what it points to
        return "Successfully deleted " + path;
    }

    string Rename(string oldPath, string newPath)
    {
        Where from = Parse(oldPath), to = Parse(newPath);
        if (from.Segs.Count == 0) Fail("Error: Cannot rename the /memories directory itself");
        Kind kind = Walk(from).kind;
        if (kind == Kind.Missing) Fail("Error: The path {0} does not exist", oldPath);
        Action<string> inWay = q => Fail("Error: Cannot rename to {0}: {1} is not a folder.", newPath, q);
        var target = Walk(new Where { Path = newPath, Segs = to.Segs }, false, inWay); // whatever is there, even a file
        if (target.kind != Kind.Missing || to.Segs.Count == 0) Fail("Error: The destination {0} already exists", newPath);
        if (to.Slash && kind != Kind.Folder)
        {
            Fail("Error: Cannot rename {0} to {1}: the destination ends with a slash, which names a folder, and {0} is a file.", oldPath, newPath);
        }
        if (to.Segs.Count > from.Segs.Count && to.Segs.Take(from.Segs.Count).SequenceEqual(from.Segs))
        {
            Fail("Error: Cannot move {0} into itself ({1}).", oldPath, newPath);
        }
        Walk(to, true, inWay); // make the missing parent folders
        UnixMarshal.ThrowExceptionForLastErrorIf(Syscall.rename(Host(from.Segs), Host(to.Segs)));
        return "Successfully renamed " + oldPath + " to " + newPath;
    }
}
