<?php
// The handler: Claude's memory tool (memory_20250818) over a folder. Replace it with your backend.
//
// handle($input) takes the tool_use input (any decoded JSON value; objects as stdClass) and returns
// [text, isError]. Paths are /memories or below it, with no `.`/`..` segment, backslash, control
// character or percent-encoded traversal; a symbolic link is never followed (delete and rename act
// on the link itself); special files and files with other hard links are never opened; edits go
// through a temporary file renamed into place; create and rename never replace anything;
// /memories itself is neither deleted nor renamed.
declare(strict_types=1);

final class Failure extends Exception {} // an answer with is_error true

final class Memory
{
    private const REQUIRED = [
        'view' => ['path'], 'create' => ['path', 'file_text'], 'str_replace' => ['path', 'old_str'],
        'insert' => ['path', 'insert_line', 'insert_text'], 'delete' => ['path'], 'rename' => ['old_path', 'new_path'],
    ];
    private const ENCODED = '/%(25)?(2e|2f|5c|00)/i'; // also double-encoded: %252e
    private const LOOKALIKES = ["\u{2024}" => '.', "\u{2025}" => '..', "\u{fe52}" => '.', "\u{ff0e}" => '.',
        "\u{2044}" => '/', "\u{2215}" => '/', "\u{ff0f}" => '/', "\u{29f5}" => '\\', "\u{fe68}" => '\\', "\u{ff3c}" => '\\'];
    private const TRAVERSAL = '~\\\\|/\.\.?(/|$)~';
    private const CONTROL = '/[\x00-\x1f\x7f\x{80}-\x{9f}]/u';
    private const LINK = 'Error: The path %s goes through the symbolic link %s; the memory tool does not follow symbolic links.';

    private string $root; // the host folder that /memories maps to

    public function __construct(string $folder)
    {
        if (!is_dir($folder)) {
            mkdir($folder, 0700, true);
        }
        $this->root = realpath($folder);
        set_error_handler(function (int $no, string $message): bool {
            if (!(error_reporting() & $no)) {
                return false; // silenced with @
            }
            throw new ErrorException($message); // PHP warnings (a failed rename, ...) become errors
        });
    }

    /** Forgets every memory; the folder itself stays. */
    public function reset(): bool
    {
        try {
            foreach (array_diff(scandir($this->root), ['.', '..']) as $name) {
                $this->remove("$this->root/$name");
            }
            return true;
        } catch (Throwable $e) {
            return false;
        }
    }

    public function handle(mixed $input): array
    {
        try {
            return [$this->run($input), false];
        } catch (Failure $e) {
            return [$e->getMessage(), true];
        } catch (Throwable $e) { // the reason alone (`mkdir(/host/path): File exists`): never the host path
            return ['Error: ' . preg_replace('/^.*\):\s*/s', '', $e->getMessage()), true];
        }
    }

    private static function fail(string $text): never
    {
        throw new Failure($text);
    }

    private static function typeName(mixed $value): string
    {
        return match (true) {
            $value === null => 'null',
            is_bool($value) => 'a boolean',
            is_int($value) => 'an integer',
            is_float($value) => 'a non-integer number',
            is_string($value) => 'a string',
            is_array($value) => 'an array',
            default => 'an object',
        };
    }

    private static function str(object $input, string $key): string
    {
        $value = $input->$key ?? null;
        if (!is_string($value)) {
            self::fail("Error: Parameter `$key` must be a string, got " . self::typeName($value) . '.');
        }
        return $value;
    }

    private function run(mixed $input): string
    {
        if (!is_object($input)) {
            self::fail('Error: The tool input must be a JSON object, got ' . self::typeName($input) . '.');
        }
        if (!property_exists($input, 'command')) {
            self::fail('Error: Missing required parameter `command`.');
        }
        $command = self::str($input, 'command');
        if (!isset(self::REQUIRED[$command])) {
            self::fail("Error: Unknown command `$command`. Valid commands are: view, create, str_replace, insert, delete, rename.");
        }
        foreach (self::REQUIRED[$command] as $key) {
            if (!property_exists($input, $key)) {
                self::fail("Error: Missing required parameter `$key` for command `$command`.");
            }
        }
        return match ($command) {
            'view' => $this->view($input),
            'create' => $this->create(self::str($input, 'path'), self::str($input, 'file_text')),
            'str_replace' => $this->strReplace($input),
            'insert' => $this->insert($input),
            'delete' => $this->delete(self::str($input, 'path')),
            'rename' => $this->rename(self::str($input, 'old_path'), self::str($input, 'new_path')),
        };
    }

    // ---- paths ----------------------------------------------------------------------------------

    private static function canonical(array $segs): string
    {
        return implode('/', ['/memories', ...$segs]);
    }

    private function host(array $segs): string
    {
        return implode('/', [$this->root, ...$segs]);
    }

    private static function shown(string $path): string // control characters written visibly: `\n`, `\u{0}`
    {
        return preg_replace_callback(self::CONTROL, fn ($m) => ["\n" => '\n', "\t" => '\t', "\r" => '\r'][$m[0]]
            ?? sprintf('\u{%x}', unpack('N', iconv('UTF-8', 'UCS-4BE', $m[0]))[1]), $path);
    }

    /** A checked memory path: [as sent, its segments below /memories, whether it ends with a slash]. */
    private static function parse(string $path): array
    {
        $bad = fn (string $why) => self::fail('Error: The path ' . self::shown($path) . " is not a valid memory path: $why");
        if (preg_match(self::CONTROL, $path) || !preg_match('//u', $path)) {
            $bad('control characters such as NUL are not allowed.');
        } elseif (str_contains($path, '\\')) {
            $bad('backslashes are not allowed.');
        } elseif ($path !== '/memories' && !str_starts_with($path, '/memories/')) {
            $bad('memory paths must be /memories or start with /memories/.');
        } elseif (strlen($path) > 4096) {
            $bad('it is longer than 4096 bytes.');
        } elseif (preg_match(self::ENCODED, $path)) {
            $bad('percent-encoded dots, slashes, backslashes and NUL are not allowed.');
        } elseif (preg_match(self::TRAVERSAL, strtr($path, self::LOOKALIKES)) && !preg_match(self::TRAVERSAL, $path)) {
            $bad('characters that look like dots, slashes or backslashes are not allowed.');
        }
        $segs = array_slice(explode('/', $path), 2);
        foreach ($segs as $seg) {
            if ($seg === '.' || $seg === '..') {
                $bad('`.` and `..` segments are not allowed.');
            } elseif (strlen($seg) > 255) {
                $bad('a path segment is longer than 255 bytes.');
            }
        }
        $segs = array_values(array_filter($segs, fn ($s) => $s !== ''));
        return [$path, $segs, str_ends_with($path, '/') && $segs];
    }

    private static function kind(array $st): string
    {
        return match ($st['mode'] & 0170000) {
            0120000 => 'link', 0040000 => 'folder', 0100000 => 'file', default => 'other',
        };
    }

    /**
     * What a path names ('missing', 'file', 'folder', 'link', 'other') and its lstat, never following
     * a symbolic link. Missing folders on the way are made when $mkdir is set; a file in the way goes
     * to $inWay.
     */
    private function walk(array $where, bool $mkdir = false, ?Closure $inWay = null): array
    {
        [$path, $segs, $slash] = $where;
        if (!$segs) {
            return ['folder', lstat($this->root)];
        }
        foreach ($segs as $i => $seg) {
            $at = $this->host(array_slice($segs, 0, $i + 1));
            $last = $i === count($segs) - 1;
            $st = @lstat($at);
            if ($st === false) {
                if ($last || !$mkdir) {
                    return ['missing', null];
                }
                mkdir($at, 0700);
                continue;
            }
            $kind = self::kind($st);
            if ($kind === 'link' && (!$last || $slash)) {
                self::fail(sprintf(self::LINK, $path, self::canonical(array_slice($segs, 0, $i + 1))));
            }
            if ($last) {
                return [$kind === 'file' && $slash ? 'missing' : $kind, $st];
            }
            if ($kind !== 'folder') {
                $inWay && $inWay(self::canonical(array_slice($segs, 0, $i + 1)));
                return ['missing', null];
            }
        }
    }

    // ---- files ----------------------------------------------------------------------------------

    /** Reads a regular file that is UTF-8 and has no other hard link (one could lie outside). */
    private function readText(array $where, array $found, string $missingText): string
    {
        [$path, $segs] = $where;
        [$kind, $st] = $found;
        match ($kind) {
            'missing', 'folder' => self::fail(sprintf($missingText, $path)),
            'link' => self::fail(sprintf(self::LINK, $path, self::canonical($segs))),
            'other' => self::fail("Error: The path $path is not a regular file or folder."),
            'file' => null,
        };
        if ($st['nlink'] > 1) {
            self::fail("Error: The file $path has other hard links, which may lie outside /memories; the memory tool does not read or edit it.");
        }
        $text = file_get_contents($this->host($segs));
        if (!preg_match('//u', $text)) {
            self::fail("Error: The file $path is not valid UTF-8 text; the memory tool only reads and edits UTF-8 text files.");
        }
        return $text;
    }

    /** Writes through a new file renamed into place: a link put there meanwhile is replaced, not followed. */
    private function writeText(array $where, string $text): void
    {
        $target = $this->host($where[1]);
        $temp = dirname($target) . '/.memory-' . bin2hex(random_bytes(8));
        $file = fopen($temp, 'x');
        fwrite($file, $text);
        fclose($file);
        rename($temp, $target);
    }

    /** Lines split on "\n"; a final newline ends the last line instead of starting an empty one. */
    private static function lines(string $text): array
    {
        return $text === '' ? [] : explode("\n", str_ends_with($text, "\n") ? substr($text, 0, -1) : $text);
    }

    private static function numbered(array $all, int $from, int $to): string
    {
        $out = '';
        for ($n = $from; $n <= $to; $n++) {
            $out .= sprintf("\n%6d\t%s", $n, $all[$n - 1]);
        }
        return $out;
    }

    private function remove(string $hostPath): void // recursive, never through a link
    {
        if (is_link($hostPath) || !is_dir($hostPath)) {
            unlink($hostPath);
            return;
        }
        foreach (array_diff(scandir($hostPath), ['.', '..']) as $name) {
            $this->remove("$hostPath/$name");
        }
        rmdir($hostPath);
    }

    // ---- commands -------------------------------------------------------------------------------

    private function view(object $input): string
    {
        $where = self::parse(self::str($input, 'path'));
        $found = $this->walk($where);
        $range = $input->view_range ?? null;
        if ($found[0] === 'folder') {
            if ($range !== null) {
                self::fail('Error: The `view_range` parameter is not allowed when `path` points to a directory.');
            }
            return $this->listing($where);
        }
        $path = $where[0];
        $all = self::lines($this->readText($where, $found, 'The path %s does not exist. Please provide a valid path.'));
        $n = count($all);
        if ($n > 999999) {
            self::fail("File $path exceeds maximum line limit of 999,999 lines.");
        }
        [$from, $to] = [1, $n];
        if ($range !== null) {
            if (!is_array($range) || count($range) !== 2 || !is_int($range[0]) || !is_int($range[1])) {
                self::fail('Error: Invalid `view_range`. It should be a list of two integers.');
            }
            [$a, $b] = $range;
            $bad = "Error: Invalid `view_range`: [$a, $b].";
            if ($a < 1 || $a > $n) {
                self::fail("$bad Its first element `$a` should be within the range of lines of the file: [1, $n]");
            }
            if ($b !== -1) {
                if ($b > $n) {
                    self::fail("$bad Its second element `$b` should be smaller than the number of lines in the file: `$n`");
                }
                if ($b < $a) {
                    self::fail("$bad Its second element `$b` should be larger or equal than its first `$a`");
                }
                $to = $b;
            }
            $from = $a;
        }
        return "Here's the content of $path with line numbers:" . self::numbered($all, $from, $to);
    }

    /**
     * Two levels deep: hidden items, node_modules, links and special files are left out; a folder's
     * size is the total of the visible files below it; folders end with "/".
     */
    private function listing(array $where): string
    {
        $out = [];
        $size = $this->visible($this->host($where[1]), 2, self::canonical($where[1]), $out);
        return "Here're the files and directories up to 2 levels deep in $where[0], excluding hidden items and node_modules:\n"
            . self::human($size) . "\t" . self::canonical($where[1]) . implode('', $out);
    }

    private function visible(string $dir, int $depth, string $shown, array &$out): int
    {
        $names = array_diff(scandir($dir), ['.', '..']);
        sort($names, SORT_STRING); // by bytes
        $total = 0;
        foreach ($names as $name) {
            if (str_starts_with($name, '.') || $name === 'node_modules') {
                continue;
            }
            $st = lstat("$dir/$name");
            $kind = self::kind($st);
            if ($kind === 'file') {
                $total += $st['size'];
                if ($depth > 0) {
                    $out[] = "\n" . self::human($st['size']) . "\t$shown/$name";
                }
            } elseif ($kind === 'folder') {
                $below = [];
                $size = $this->visible("$dir/$name", $depth - 1, "$shown/$name", $below);
                $total += $size;
                if ($depth > 0) {
                    $out[] = "\n" . self::human($size) . "\t$shown/$name/" . ($depth > 1 ? implode('', $below) : '');
                }
            }
        }
        return $total;
    }

    private static function human(int $n): string
    {
        if ($n < 1024) {
            return "{$n}B";
        }
        [$value, $unit] = [$n / 1024, 0];
        while ($value >= 1023.95 && $unit < 5) {
            [$value, $unit] = [$value / 1024, $unit + 1];
        }
        return sprintf('%.1f%s', $value, 'KMGTPE'[$unit]);
    }

    private function create(string $path, string $text): string
    {
        $where = self::parse($path);
        if (!$where[1]) {
            self::fail("Error: File $path already exists");
        }
        if ($where[2]) {
            self::fail("Error: The path $path ends with a slash; create makes files, not folders.");
        }
        [$kind] = $this->walk($where, true, fn ($q) => self::fail("Error: Cannot create $path: $q is not a folder."));
        $file = $kind === 'missing' ? @fopen($this->host($where[1]), 'x') : false; // 'x': O_CREAT|O_EXCL
        if ($file === false) {
            self::fail("Error: File $path already exists");
        }
        fwrite($file, $text);
        fclose($file);
        return "File created successfully at: $path";
    }

    private function strReplace(object $input): string
    {
        $where = self::parse(self::str($input, 'path'));
        $old = self::str($input, 'old_str');
        $new = ($input->new_str ?? null) === null ? '' : self::str($input, 'new_str'); // omitted (or null): deletes old_str
        $text = $this->readText($where, $this->walk($where), 'Error: The path %s does not exist. Please provide a valid path.');
        $path = $where[0];
        if ($old === '') {
            self::fail("Error: No replacement was performed on $path: `old_str` must not be empty.");
        }
        $at = []; // byte offsets of every start, overlapping ones too
        for ($i = strpos($text, $old); $i !== false; $i = strpos($text, $old, $i + 1)) {
            $at[] = $i;
        }
        if (!$at) {
            self::fail("No replacement was performed, old_str `$old` did not appear verbatim in $path.");
        }
        if (count($at) > 1) {
            [$line, $counted, $nums] = [1, 0, []]; // the line of each start, counted in one pass
            foreach ($at as $i) {
                $line += substr_count($text, "\n", $counted, $i - $counted);
                $counted = $i;
                $nums[$line] = $line;
            }
            $nums = implode(', ', $nums);
            self::fail("No replacement was performed. Multiple occurrences of old_str `$old` in lines: $nums. Please ensure it is unique");
        }
        $edited = substr($text, 0, $at[0]) . $new . substr($text, $at[0] + strlen($old));
        $this->writeText($where, $edited);
        $all = self::lines($edited);
        $first = substr_count($text, "\n", 0, $at[0]) + 1;
        return 'The memory file has been edited.'
            . self::numbered($all, max(1, $first - 4), min(count($all), $first + substr_count($new, "\n") + 4));
    }

    private function insert(object $input): string
    {
        $where = self::parse(self::str($input, 'path'));
        $line = $input->insert_line;
        if (!is_int($line)) {
            self::fail('Error: Parameter `insert_line` must be an integer, got ' . self::typeName($line) . '.');
        }
        $add = self::str($input, 'insert_text');
        $text = $this->readText($where, $this->walk($where), 'Error: The path %s does not exist');
        $all = self::lines($text);
        if ($line < 0 || $line > count($all)) {
            self::fail("Error: Invalid `insert_line` parameter: $line. It should be within the range of lines of the file: [0, " . count($all) . ']');
        }
        if ($add !== '') {
            $cut = array_sum(array_map(fn ($l) => strlen($l) + 1, array_slice($all, 0, $line))); // after line $line
            [$before, $after] = [substr($text, 0, $cut), substr($text, min($cut, strlen($text)))];
            if ($before !== '' && !str_ends_with($before, "\n")) {
                $before .= "\n"; // appending to a last line without newline ends that line first
            }
            if ($after !== '' && !str_ends_with($add, "\n")) {
                $add .= "\n"; // text put between two lines becomes whole lines
            }
            $this->writeText($where, $before . $add . $after);
        }
        return "The file $where[0] has been edited.";
    }

    private function delete(string $path): string
    {
        $where = self::parse($path);
        if (!$where[1]) {
            self::fail('Error: Cannot delete the /memories directory itself');
        }
        if ($this->walk($where)[0] === 'missing') {
            self::fail("Error: The path $path does not exist");
        }
        $this->remove($this->host($where[1])); // a link is removed, never what it points to
        return "Successfully deleted $path";
    }

    private function rename(string $oldPath, string $newPath): string
    {
        [$from, $to] = [self::parse($oldPath), self::parse($newPath)];
        if (!$from[1]) {
            self::fail('Error: Cannot rename the /memories directory itself');
        }
        [$kind] = $this->walk($from);
        if ($kind === 'missing') {
            self::fail("Error: The path $oldPath does not exist");
        }
        $inWay = fn ($q) => self::fail("Error: Cannot rename to $newPath: $q is not a folder.");
        [$target] = $this->walk([$newPath, $to[1], false], false, $inWay); // whatever is there, even a file
        if ($target !== 'missing' || !$to[1]) {
            self::fail("Error: The destination $newPath already exists");
        }
        if ($to[2] && $kind !== 'folder') {
            self::fail("Error: Cannot rename $oldPath to $newPath: the destination ends with a slash, which names a folder, and $oldPath is a file.");
        }
        if (array_slice($to[1], 0, count($from[1])) === $from[1]) {
            self::fail("Error: Cannot move $oldPath into itself ($newPath).");
        }
        $this->walk($to, true, $inWay); // make the missing parent folders
        rename($this->host($from[1]), $this->host($to[1]));
        return "Successfully renamed $oldPath to $newPath";
    }
}
