<?php
// Protocol v1 for memspec (JSON Lines on stdin/stdout) around one handler function.
//
//   memspec check --backend 'php adapters/templates/php/main.php {memories}'
//
// Replace handle() and reset() in memory.php with your backend; this file only speaks the protocol.
declare(strict_types=1);
ini_set('display_errors', 'stderr'); // stdout carries the replies and nothing else
ini_set('memory_limit', '-1');
require __DIR__ . '/memory.php';

$folder = $argv[1] ?? getenv('MEMSPEC_MEMORIES');
if (!$folder) {
    fwrite(STDERR, "usage: php main.php MEMORIES_FOLDER\n");
    exit(2);
}
$memory = new Memory($folder);

while (($line = fgets(STDIN)) !== false) {
    if (trim($line) === '') {
        continue;
    }
    // Objects stay objects (stdClass), so the handler can tell {} from [].
    $request = json_decode($line, false, 512);
    $id = is_object($request) ? ($request->id ?? null) : null;
    $control = is_object($request) ? ($request->control ?? null) : false;
    if ($control === false) {
        $answer = ['id' => null, 'content' => 'Error: the request is not a JSON object', 'is_error' => true];
    } elseif ($control === null) { // a tool call: any JSON value, malformed inputs included, reaches the handler
        [$text, $isError] = $memory->handle($request->input ?? null);
        $answer = ['id' => $id, 'content' => $text, 'is_error' => $isError];
    } elseif ($control === 'reset') { // forget every memory, keep the folder: one process then serves every case
        $answer = ['id' => $id, 'ok' => $memory->reset()];
    } elseif ($control === 'hello') {
        $answer = ['id' => $id, 'ok' => true, 'protocol' => 1, 'backend' => 'php template'];
    } else {
        $answer = ['id' => $id, 'ok' => false];
    }
    fwrite(STDOUT, json_encode($answer, JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES | JSON_INVALID_UTF8_SUBSTITUTE) . "\n");
    fflush(STDOUT);
}
