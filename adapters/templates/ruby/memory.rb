# The handler: Claude's memory tool (memory_20250818) over a folder. Replace it with your backend.
#
# handle(input) takes the tool_use input (any JSON value) and returns [text, is_error]. Paths are
# /memories or below it, with no `.`/`..` segment, backslash, control character or percent-encoded
# traversal; a symbolic link is never followed (delete and rename act on the link itself); special
# files and files with other hard links are never opened; create and rename never replace
# anything; /memories itself is neither deleted nor renamed.
require "fileutils"

class Memory
  class Failure < StandardError; end # an answer with is_error true

  REQUIRED = {
    "view" => %w[path], "create" => %w[path file_text], "str_replace" => %w[path old_str],
    "insert" => %w[path insert_line insert_text], "delete" => %w[path], "rename" => %w[old_path new_path]
  }.freeze
  ENCODED = /%(25)?(2e|2f|5c|00)/i # also double-encoded: %252e
  LOOKALIKES = { "\u2024" => ".", "\u2025" => "..", "\ufe52" => ".", "\uff0e" => ".", "\u2044" => "/",
                 "\u2215" => "/", "\uff0f" => "/", "\u29f5" => "\\", "\ufe68" => "\\", "\uff3c" => "\\" }.freeze
  TRAVERSAL = %r{\\|/\.\.?(/|\z)}
  CONTROL = /[\u0000-\u001f\u007f-\u009f]/
  LINK = "Error: The path %s goes through the symbolic link %s; the memory tool does not follow symbolic links."

  def initialize(folder)
    FileUtils.mkdir_p(folder)
    @root = File.realpath(folder)
  end

  # Forgets every memory; the folder itself stays (remove_entry never follows a link).
  def reset
    Dir.children(@root).each { |name| FileUtils.remove_entry(File.join(@root, name)) }
  end

  def handle(input)
    [run(input), false]
  rescue Failure => e
    [e.message, true]
  rescue SystemCallError => e # the reason alone: never the host path
    ["Error: #{e.class.new.message}", true]
  rescue StandardError => e # never die on an input
    ["Error: internal error (#{e.class})", true]
  end

  private

  def fail!(text) = raise(Failure, text)

  def type_name(value)
    case value
    when nil then "null"
    when true, false then "a boolean"
    when Integer then integer?(value) ? "an integer" : "a non-integer number"
    when Float then "a non-integer number"
    when String then "a string"
    when Array then "an array"
    else "an object"
    end
  end

  def integer?(value) = value.is_a?(Integer) && value.between?(-2**63, 2**64 - 1)

  def str(input, key)
    value = input[key]
    fail!("Error: Parameter `#{key}` must be a string, got #{type_name(value)}.") unless value.is_a?(String)
    value
  end

  def run(input)
    fail!("Error: The tool input must be a JSON object, got #{type_name(input)}.") unless input.is_a?(Hash)
    fail!("Error: Missing required parameter `command`.") unless input.key?("command")
    command = str(input, "command")
    unless REQUIRED.key?(command)
      fail!("Error: Unknown command `#{command}`. Valid commands are: view, create, str_replace, insert, delete, rename.")
    end
    REQUIRED[command].each do |key|
      fail!("Error: Missing required parameter `#{key}` for command `#{command}`.") unless input.key?(key)
    end
    case command
    when "view" then view(input)
    when "create" then create(str(input, "path"), str(input, "file_text"))
    when "str_replace" then str_replace(input)
    when "insert" then insert(input)
    when "delete" then delete(str(input, "path"))
    else rename(str(input, "old_path"), str(input, "new_path"))
    end
  end

  # ---- paths ------------------------------------------------------------------------------------

  # A checked memory path: as Claude sent it, its segments below /memories, a trailing slash.
  Where = Struct.new(:path, :segs, :slash)

  def canonical(segs) = (["/memories"] + segs).join("/")
  def host(segs) = File.join(@root, *segs)

  def shown(path) # control characters written visibly: `\n`, `\u{0}`
    path.gsub(CONTROL) { |c| { "\n" => "\\n", "\t" => "\\t", "\r" => "\\r" }[c] || format("\\u{%x}", c.ord) }
  end

  def parse(path)
    bad = ->(why) { fail!("Error: The path #{shown(path)} is not a valid memory path: #{why}") }
    if path.match?(CONTROL) then bad.("control characters such as NUL are not allowed.")
    elsif path.include?("\\") then bad.("backslashes are not allowed.")
    elsif path != "/memories" && !path.start_with?("/memories/")
      bad.("memory paths must be /memories or start with /memories/.")
    elsif path.bytesize > 4096 then bad.("it is longer than 4096 bytes.")
    elsif path.match?(ENCODED) then bad.("percent-encoded dots, slashes, backslashes and NUL are not allowed.")
    elsif path.gsub(Regexp.union(LOOKALIKES.keys), LOOKALIKES).match?(TRAVERSAL) && !path.match?(TRAVERSAL)
      bad.("characters that look like dots, slashes or backslashes are not allowed.")
    end
    segs = path.split("/")[2..] || []
    bad.("`.` and `..` segments are not allowed.") if segs.any? { |s| [".", ".."].include?(s) }
    bad.("a path segment is longer than 255 bytes.") if segs.any? { |s| s.bytesize > 255 }
    segs = segs.reject(&:empty?)
    Where.new(path, segs, path.end_with?("/") && !segs.empty?)
  end

  # What a path names (:missing, :file, :folder, :link, :other), never following a symbolic link.
  # Missing folders on the way are made when mkdir is set; a file in the way goes to in_way.
  def walk(where, mkdir: false, in_way: nil)
    return [:folder, File.lstat(@root)] if where.segs.empty?

    where.segs.each_with_index do |_, i|
      at = host(where.segs[0..i])
      last = i == where.segs.size - 1
      begin
        st = File.lstat(at)
      rescue Errno::ENOENT
        return [:missing, nil] if last || !mkdir

        Dir.mkdir(at, 0o700)
        next
      end
      fail!(format(LINK, where.path, canonical(where.segs[0..i]))) if st.symlink? && (!last || where.slash)
      if last
        return [:link, st] if st.symlink?
        return [:folder, st] if st.directory?
        return [(where.slash ? :missing : :file), st] if st.file?

        return [:other, st]
      end
      next if st.directory?

      in_way&.call(canonical(where.segs[0..i]))
      return [:missing, nil]
    end
  end

  # ---- files ------------------------------------------------------------------------------------

  # Reads a regular file that is UTF-8 and has no other hard link (one could lie outside).
  def read_text(where, kind, st, missing_text)
    case kind
    when :missing, :folder then fail!(format(missing_text, where.path))
    when :link then fail!(format(LINK, where.path, canonical(where.segs)))
    when :other then fail!("Error: The path #{where.path} is not a regular file or folder.")
    end
    if st.nlink > 1
      fail!("Error: The file #{where.path} has other hard links, which may lie outside /memories; " \
            "the memory tool does not read or edit it.")
    end
    text = File.open(host(where.segs), File::RDONLY | File::NOFOLLOW | File::NONBLOCK, &:read)
    text.force_encoding(Encoding::UTF_8)
    unless text.valid_encoding?
      fail!("Error: The file #{where.path} is not valid UTF-8 text; the memory tool only reads and edits UTF-8 text files.")
    end
    text
  end

  def write_text(where, text)
    File.open(host(where.segs), File::WRONLY | File::TRUNC | File::NOFOLLOW) { |f| f.write(text) }
  end

  # Lines split on "\n"; a final newline ends the last line instead of starting an empty one.
  def lines(text)
    return [] if text.empty?

    body = text.delete_suffix("\n")
    body.empty? ? [""] : body.split("\n", -1)
  end

  def numbered(all, from, to) = (from..to).map { |n| format("\n%6d\t%s", n, all[n - 1]) }.join

  # ---- commands ---------------------------------------------------------------------------------

  def view(input)
    where = parse(str(input, "path"))
    kind, st = walk(where)
    range = input["view_range"]
    if kind == :folder
      fail!("Error: The `view_range` parameter is not allowed when `path` points to a directory.") unless range.nil?
      return listing(where)
    end
    all = lines(read_text(where, kind, st, "The path %s does not exist. Please provide a valid path."))
    n = all.size
    fail!("File #{where.path} exceeds maximum line limit of 999,999 lines.") if n > 999_999
    from, to = 1, n
    unless range.nil?
      unless range.is_a?(Array) && range.size == 2 && range.all? { |v| integer?(v) }
        fail!("Error: Invalid `view_range`. It should be a list of two integers.")
      end
      a, b = range
      bad = "Error: Invalid `view_range`: [#{a}, #{b}]."
      fail!("#{bad} Its first element `#{a}` should be within the range of lines of the file: [1, #{n}]") if a < 1 || a > n
      if b != -1
        fail!("#{bad} Its second element `#{b}` should be smaller than the number of lines in the file: `#{n}`") if b > n
        fail!("#{bad} Its second element `#{b}` should be larger or equal than its first `#{a}`") if b < a
        to = b
      end
      from = a
    end
    "Here's the content of #{where.path} with line numbers:" + numbered(all, from, to)
  end

  # Two levels deep: hidden items, node_modules, links and special files are left out; a folder's
  # size is the total of the visible files below it; folders end with "/".
  def listing(where)
    out = []
    size = visible(host(where.segs), 2, canonical(where.segs), out)
    "Here're the files and directories up to 2 levels deep in #{where.path}, excluding hidden items " \
      "and node_modules:\n#{human(size)}\t#{canonical(where.segs)}#{out.join}"
  end

  def visible(dir, depth, shown, out)
    Dir.children(dir).sort.sum do |name|
      next 0 if name.start_with?(".") || name == "node_modules"

      st = File.lstat(File.join(dir, name))
      label = "#{shown}/#{name.dup.force_encoding(Encoding::UTF_8).scrub}"
      if st.file?
        out << "\n#{human(st.size)}\t#{label}" if depth.positive?
        st.size
      elsif st.directory?
        below = []
        size = visible(File.join(dir, name), depth - 1, label, below)
        out << "\n#{human(size)}\t#{label}/" << (depth > 1 ? below.join : "") if depth.positive?
        size
      else
        0
      end
    end
  end

  def human(n)
    return "#{n}B" if n < 1024

    value, unit = n / 1024.0, 0
    value, unit = value / 1024, unit + 1 while value >= 1023.95 && unit < 5
    format("%.1f%s", value, "KMGTPE"[unit])
  end

  def create(path, text)
    where = parse(path)
    fail!("Error: File #{path} already exists") if where.segs.empty?
    fail!("Error: The path #{path} ends with a slash; create makes files, not folders.") if where.slash
    kind, = walk(where, mkdir: true, in_way: ->(q) { fail!("Error: Cannot create #{path}: #{q} is not a folder.") })
    fail!("Error: File #{path} already exists") unless kind == :missing
    File.open(host(where.segs), File::WRONLY | File::CREAT | File::EXCL | File::NOFOLLOW, 0o600) { |f| f.write(text) }
    "File created successfully at: #{path}"
  rescue Errno::EEXIST
    fail!("Error: File #{path} already exists")
  end

  def str_replace(input)
    where = parse(str(input, "path"))
    old = str(input, "old_str")
    replacement = input["new_str"].nil? ? "" : str(input, "new_str") # omitted (or null): deletes old_str
    kind, st = walk(where)
    text = read_text(where, kind, st, "Error: The path %s does not exist. Please provide a valid path.")
    fail!("Error: No replacement was performed on #{where.path}: `old_str` must not be empty.") if old.empty?
    at = [] # byte offsets of every start, overlapping ones too
    bytes, pattern = text.b, old.b
    while (i = bytes.index(pattern, at.empty? ? 0 : at.last + 1))
      at << i
    end
    fail!("No replacement was performed, old_str `#{old}` did not appear verbatim in #{where.path}.") if at.empty?
    if at.size > 1
      line, counted = 1, 0 # the line of each start, counted in one pass
      nums = at.map { |i| (line += bytes[counted...i].count("\n")).tap { counted = i } }.uniq.join(", ")
      fail!("No replacement was performed. Multiple occurrences of old_str `#{old}` in lines: #{nums}. Please ensure it is unique")
    end
    before = text.byteslice(0, at[0])
    edited = before + replacement + text.byteslice(at[0] + old.bytesize..)
    write_text(where, edited)
    all = lines(edited)
    first = before.count("\n") + 1
    "The memory file has been edited." + numbered(all, [1, first - 4].max, [all.size, first + replacement.count("\n") + 4].min)
  end

  def insert(input)
    where = parse(str(input, "path"))
    line = input["insert_line"]
    fail!("Error: Parameter `insert_line` must be an integer, got #{type_name(line)}.") unless integer?(line)
    add = str(input, "insert_text")
    kind, st = walk(where)
    text = read_text(where, kind, st, "Error: The path %s does not exist")
    all = lines(text)
    if line.negative? || line > all.size
      fail!("Error: Invalid `insert_line` parameter: #{line}. It should be within the range of lines of the file: [0, #{all.size}]")
    end
    unless add.empty?
      cut = all.first(line).sum { |l| l.bytesize + 1 } # the byte offset after line `line`
      before, after = text.byteslice(0, cut) || text, text.byteslice(cut..) || ""
      before += "\n" unless before.empty? || before.end_with?("\n") # end a last line first
      add += "\n" unless after.empty? || add.end_with?("\n") # text between lines: whole lines
      write_text(where, before + add + after)
    end
    "The file #{where.path} has been edited."
  end

  def delete(path)
    where = parse(path)
    fail!("Error: Cannot delete the /memories directory itself") if where.segs.empty?
    kind, = walk(where)
    fail!("Error: The path #{path} does not exist") if kind == :missing
    FileUtils.remove_entry(host(where.segs)) # a link is removed, never what it points to
    "Successfully deleted #{path}"
  end

  def rename(old_path, new_path)
    from, to = parse(old_path), parse(new_path)
    fail!("Error: Cannot rename the /memories directory itself") if from.segs.empty?
    kind, = walk(from)
    fail!("Error: The path #{old_path} does not exist") if kind == :missing
    in_way = ->(q) { fail!("Error: Cannot rename to #{new_path}: #{q} is not a folder.") }
    target, = walk(Where.new(new_path, to.segs, false), in_way: in_way) # whatever is there, even a file
    fail!("Error: The destination #{new_path} already exists") if target != :missing || to.segs.empty?
    if to.slash && kind != :folder
      fail!("Error: Cannot rename #{old_path} to #{new_path}: the destination ends with a slash, which names a " \
            "folder, and #{old_path} is a file.")
    end
    fail!("Error: Cannot move #{old_path} into itself (#{new_path}).") if to.segs[0, from.segs.size] == from.segs
    walk(to, mkdir: true, in_way: in_way) # make the missing parent folders
    File.rename(host(from.segs), host(to.segs))
    "Successfully renamed #{old_path} to #{new_path}"
  end
end
